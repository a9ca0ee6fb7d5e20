package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first steps of docs/GUIDE.md, run as written: every code block marked
 * {@code <!-- guide-test -->} is run in order, each {@code $} line in bash with {@code vigil} being
 * this build's CLI, on a fresh home and work directory. Each command must exit as shown ({@code [exit
 * N]}, else 0) and print what is shown, once the things that differ between runs are set aside:
 * pids, times, the build, the order of the ticket counts, runs of spaces, and the home and work
 * directories (the guide's {@code /tmp/gd/home} and {@code /tmp/gd/work}).
 */
class GuideRunTest {
  private static final Path GUIDE = Path.of("..", "docs", "GUIDE.md");
  private static final String GUIDE_HOME = "/tmp/gd/home";
  private static final String GUIDE_WORK = "/tmp/gd/work";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private Path home;
  private Path work;

  @AfterEach
  void stopTheDaemon() throws Exception {
    if (home != null) {
      run("vigil down --stop-workers");
    }
  }

  /** One command of a block, with the output and exit code the guide shows. */
  record Step(String command, List<String> output, int exitCode) {}

  /** The steps of the marked blocks, in order. */
  static List<Step> steps(String guide) {
    List<Step> steps = new ArrayList<>();
    Matcher m = Pattern.compile("<!-- guide-test -->\\s*```console\\n(.*?)```", Pattern.DOTALL).matcher(guide);
    while (m.find()) {
      String command = null;
      List<String> out = new ArrayList<>();
      int code = 0;
      for (String line : m.group(1).split("\n")) {
        if (line.startsWith("$ ")) {
          if (command != null) {
            steps.add(new Step(command, out, code));
          }
          command = line.substring(2);
          out = new ArrayList<>();
          code = 0;
        } else if (line.matches("\\[exit [0-9]+\\]")) {
          code = Integer.parseInt(line.replaceAll("[^0-9]", ""));
        } else {
          out.add(line);
        }
      }
      if (command != null) {
        steps.add(new Step(command, out, code));
      }
    }
    return steps;
  }

  private record Ran(int code, String output) {}

  /** Runs one shell line with a clean environment in which {@code vigil} is this build's CLI. */
  private Ran run(String line) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String script = "vigil() { '" + java + "' -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp \"$VIGIL_TEST_CP\" "
        + Main.class.getName() + " \"$@\"; }\n" + line + "\n";
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(work.toFile()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", tmp.toString());
    env.put("LANG", "C.UTF-8");
    env.put("VIGIL_HOME", home.toString());
    env.put("VIGIL_TEST_CP", System.getProperty("java.class.path"));
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + line);
    return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** The output with what differs between runs set aside. */
  private String normal(String text, String homeDir, String workDir) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : text.replace(homeDir, "HOME").replace(workDir, "WORK").split("\n")) {
      String l = line.replaceAll("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "TIME")
          .replaceAll("\\bpid [0-9]+", "pid N")
          .replaceAll("\\[[0-9]+\\]", "[N]")
          .replaceAll("\\bbuild [^ ),]+", "build B")
          .replaceAll("version [^ ,]+", "version V")
          .replaceAll("\\s+", " ")
          .strip();
      if (l.startsWith("tickets {")) {
        l = "tickets " + new TreeMap<>(JSON.readValue(l.substring("tickets ".length()), Map.class));
      }
      if (!l.isEmpty()) {
        out.add(l);
      }
    }
    return String.join("\n", out);
  }

  @Test
  void theFirstStepsOfTheGuideWorkAsWritten() throws Exception {
    List<Step> steps = steps(Files.readString(GUIDE));
    assertTrue(steps.size() >= 8, "steps marked in GUIDE.md: " + steps.size());
    assertTrue(steps.stream().anyMatch(s -> s.command().startsWith("vigil up")), "the steps start a daemon");
    assertTrue(steps.stream().anyMatch(s -> s.command().startsWith("vigil submit")), "the steps submit work");
    home = Files.createDirectory(tmp.resolve("home"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    work = Files.createDirectory(tmp.resolve("work"));
    int compared = 0;
    for (Step s : steps) {
      Ran r = run(s.command());
      String where = "GUIDE.md: $ " + s.command() + "\n" + r.output();
      assertEquals(s.exitCode(), r.code(), "exit code of " + where);
      assertEquals(normal(String.join("\n", s.output()), GUIDE_HOME, GUIDE_WORK),
          normal(r.output(), home.toString(), work.toString()), "output of " + where);
      compared++;
    }
    assertEquals(steps.size(), compared);
  }
}
