package dev.vigil.coordination.h2;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.h2.tools.Recover;

/**
 * The main class of the JVM that {@link Salvage} starts to run H2's recovery tool: {@code <file.mv.db>
 * <out.sql>} writes the SQL of what {@code org.h2.tools.Recover} reads of the file.
 *
 * <p>It calls the tool's own dump of a store ({@code Recover.dumpMVStoreFile}, which opens the file
 * in H2's recovery mode, where a page that cannot be read is left out) and not {@code Recover.execute}:
 * in H2 2.5.252 {@code execute} first writes a diagnostic dump of every chunk
 * ({@code MVStoreTool.dump}), which on a damaged page allocates what the garbage says (measured: a
 * 4 KiB block of {@code 0xa5} bytes asks for about 2.7 GB and fails with OutOfMemoryError) and so
 * never reaches the SQL. When the dump method is not there (another H2 version), {@code execute}
 * runs instead.
 */
final class RecoverTool {
  private RecoverTool() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]).toAbsolutePath();
    Path sql = Path.of(args[1]).toAbsolutePath();
    Method dump;
    try {
      dump = Recover.class.getDeclaredMethod("dumpMVStoreFile", PrintWriter.class, String.class);
      dump.setAccessible(true);
    } catch (NoSuchMethodException | RuntimeException e) {
      String name = file.getFileName().toString();
      Recover.execute(file.getParent().toString(), name.substring(0, name.length() - DatabaseFile.SUFFIX.length()));
      return;
    }
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(sql, StandardCharsets.UTF_8))) {
      dump.invoke(new Recover(), w, file.toString());
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof Exception x ? x : e;
    }
  }
}
