package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.lang.reflect.Modifier;
import java.nio.channels.spi.SelectorProvider;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerMainTest {
  @Test
  void commandHostsNameTheJdksOwnSelectorProvider_customTypesAndNamedOnesLetItBe() {
    assertEquals(Optional.of(WorkerMain.LINUX_SELECTOR_PROVIDER),
        WorkerMain.selectorProvider(WorkerTypeSpec.Command.DEFAULT, null), "the built-in type's classpath installs none");
    assertEquals(Optional.of(WorkerMain.LINUX_SELECTOR_PROVIDER),
        WorkerMain.selectorProvider(new WorkerTypeSpec.Command(99), null));
    assertEquals(Optional.empty(), WorkerMain.selectorProvider(new WorkerTypeSpec.Declared("com.example.Report"), null),
        "a custom type's classpath may install one: the JDK searches it");
    assertEquals(Optional.empty(), WorkerMain.selectorProvider(WorkerTypeSpec.Command.DEFAULT, "com.example.Provider"),
        "a provider named on the host's command line stays");
  }

  @Test
  void theProviderNamedIsTheOneTheJdkFindsWithoutOne_andTheJdkCanMakeIt() throws Exception {
    // this JVM's classpath installs no provider either: what the search found is what a host names
    assertEquals(WorkerMain.LINUX_SELECTOR_PROVIDER, SelectorProvider.provider().getClass().getName());
    Class<?> c = Class.forName(WorkerMain.LINUX_SELECTOR_PROVIDER, false, null);
    assertTrue(SelectorProvider.class.isAssignableFrom(c));
    assertTrue(Modifier.isPublic(c.getModifiers()) && Modifier.isPublic(c.getConstructor().getModifiers()),
        "the JDK makes a named provider through its public constructor");
  }
}
