package dev.vigil.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The examples are what a user may copy: their main classes use Vigil's public API only, and each
 * runnable {@code *Main} is run by a test of its own ({@code *MainTest}), so none can rot unseen.
 */
class ExamplesUsePublicApiTest {
  /** Vigil's packages an application uses: the embedding API, the Worker SPI, and the values they speak in. */
  private static final Set<String> PUBLIC = Set.of("dev.vigil.launcher", "dev.vigil.worker", "dev.vigil.coordination",
      "dev.vigil.supervisor", "dev.vigil.supervisor.engine");

  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.vigil.examples");

  @Test
  void theExamplesMainClassesUseOnlyVigilsPublicPackages() {
    assertTrue(MAIN.size() >= 4, "the examples' main classes were read: " + MAIN.size());
    noClasses().should().dependOnClassesThat(DescribedPredicate.describe(
        "are in a Vigil package that is not public API (" + PUBLIC + ")", (JavaClass c) ->
            c.getPackageName().startsWith("dev.vigil.") && !c.getPackageName().equals("dev.vigil.examples")
                && !PUBLIC.contains(c.getPackageName())))
        .check(MAIN);
    assertTrue(MAIN.stream().anyMatch(c -> c.getDirectDependenciesFromSelf().stream()
        .anyMatch(d -> d.getTargetClass().getPackageName().equals("dev.vigil.launcher"))), "the rule saw real uses");
  }

  @Test
  void everyRunnableMainIsRunByATestOfItsOwn() throws Exception {
    Set<String> mains = MAIN.stream().map(JavaClass::getSimpleName).filter(n -> n.endsWith("Main"))
        .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(mains.size() >= 2, "mains: " + mains);
    Set<String> tests;
    try (Stream<Path> files = Files.list(Path.of("src", "test", "java", "dev", "vigil", "examples"))) {
      tests = files.map(p -> p.getFileName().toString().replace(".java", "")).collect(Collectors.toSet());
    }
    List<String> untested = mains.stream().filter(m -> !tests.contains(m + "Test")).toList();
    assertEquals(List.of(), untested, "every *Main has a *MainTest that runs it");
    for (JavaClass c : MAIN) {
      if (c.getSimpleName().endsWith("Main")) {
        assertTrue(c.getMethods().stream().anyMatch(m -> m.getName().equals("main")), c.getName() + " has a main");
      }
    }
  }
}
