package dev.vigil.launcher.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * This build's version, build id and socket protocol number (S8, S9).
 *
 * <p>The build id is {@code VERSION+HASH}: a hash of what was built, the code this class was loaded
 * from (the runnable jar, or the classes directory when run from the build tree), so rebuilding the
 * same source gives the same id (the jar is reproducible: {@code project.build.outputTimestamp}) and
 * any change of code gives another. The hash covers every entry's name, size and CRC-32 in name order,
 * except the manifest, Maven's metadata and {@code build.properties}; a jar's CRCs are read from its
 * central directory, so computing it reads no class. A {@code build=} line in {@code build.properties}
 * names the build explicitly instead (tests that make several builds of one jar use it).
 */
public final class BuildInfo {
  /** The socket protocol number this build speaks. */
  public static final int PROTOCOL = 1;
  /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static final String VERSION;
  /** The build id: the version and the hash of what was built. */
  public static final String BUILD;

  /** The resource holding the version (and, when set, the build id). */
  static final String PROPERTIES = "dev/vigil/launcher/build.properties";
  /** Characters of the hash kept in the build id. */
  static final int HASH_CHARS = 12;

  static {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("/" + PROPERTIES)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // defaults below
    }
    String v = p.getProperty("version", "0.0.0-dev");
    String b = p.getProperty("build", "").trim();
    VERSION = v.contains("${") ? "0.0.0-dev" : v;
    BUILD = b.isEmpty() || b.contains("${") ? VERSION + "+" + codeHash().orElse("unknown") : b;
  }

  private BuildInfo() {}

  private static java.util.Optional<String> codeHash() {
    try {
      CodeSource cs = BuildInfo.class.getProtectionDomain().getCodeSource();
      if (cs == null || cs.getLocation() == null) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(contentHash(Path.of(cs.getLocation().toURI())));
    } catch (IOException | URISyntaxException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * The content hash of a jar or a classes directory: the first {@value #HASH_CHARS} hex digits of
   * SHA-256 over each entry's name, size and CRC-32, in name order. A jar and a directory with the
   * same files hash alike; timestamps and entry order do not count.
   */
  public static String contentHash(Path code) throws IOException {
    Map<String, long[]> entries = new TreeMap<>();
    if (Files.isDirectory(code)) {
      List<Path> files = new ArrayList<>();
      try (Stream<Path> s = Files.walk(code)) {
        s.filter(Files::isRegularFile).forEach(files::add);
      }
      for (Path f : files) {
        String name = code.relativize(f).toString().replace('\\', '/');
        if (counted(name)) {
          byte[] bytes = Files.readAllBytes(f);
          CRC32 crc = new CRC32();
          crc.update(bytes);
          entries.put(name, new long[] {bytes.length, crc.getValue()});
        }
      }
    } else {
      try (JarFile jar = new JarFile(code.toFile(), false)) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          JarEntry j = e.nextElement();
          if (!j.isDirectory() && counted(j.getName())) {
            entries.put(j.getName(), new long[] {j.getSize(), j.getCrc()});
          }
        }
      }
    }
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    for (Map.Entry<String, long[]> e : entries.entrySet()) {
      sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update((Long.toHexString(e.getValue()[0]) + ":" + Long.toHexString(e.getValue()[1]) + "\n")
          .getBytes(StandardCharsets.US_ASCII));
    }
    return HexFormat.of().formatHex(sha.digest()).substring(0, HASH_CHARS);
  }

  /** Whether an entry is part of what was built: not the manifest, Maven's metadata or the build properties. */
  private static boolean counted(String name) {
    return !name.equals("META-INF/MANIFEST.MF") && !name.startsWith("META-INF/maven/") && !name.equals(PROPERTIES);
  }
}
