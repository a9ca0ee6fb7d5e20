package dev.vigil.launcher.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** This build's version, build id and socket protocol number (S8, S9), from the jar's resources. */
public final class BuildInfo {
  /** The socket protocol number this build speaks. */
  public static final int PROTOCOL = 1;
  /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static final String VERSION;
  /** The build id: the version and the build's timestamp. */
  public static final String BUILD;

  static {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("/dev/vigil/launcher/build.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // defaults below
    }
    String v = p.getProperty("version", "0.0.0-dev");
    String b = p.getProperty("build", v);
    VERSION = v.contains("${") ? "0.0.0-dev" : v;
    BUILD = b.contains("${") ? VERSION : b;
  }

  private BuildInfo() {}
}
