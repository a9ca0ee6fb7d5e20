package dev.vigil.supervisor;

import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Vigil version, ordered by semantic-versioning precedence (S8). A pre-release is below the
 * release of its series ({@code major.minor.patch}): so a {@code -dev} build ({@code 1.2.0-dev <
 * 1.2.0}) and an older-scheme build ({@code 0.9.9-main.46 < 0.9.9}) are below the releases of their
 * series, and above the releases before it. Pre-release identifiers compare left to right, numeric
 * ones numerically and below alphanumeric ones, which compare in ASCII order; a shorter list of
 * equal leading identifiers is lower. Build metadata after {@code +} is kept but takes no part in
 * the order nor in {@link #equals(Object)}; which build a process is, is a separate string.
 *
 * <p>Text: {@code MAJOR.MINOR.PATCH[-PRE][+META]}, optionally after a {@code v}; numbers without
 * leading zeros.
 *
 * @param major         major number
 * @param minor         minor number
 * @param patch         patch number
 * @param preRelease    pre-release identifiers, empty for a release
 * @param buildMetadata build metadata, empty if none
 */
public record Version(long major, long minor, long patch, List<String> preRelease, String buildMetadata)
    implements Comparable<Version> {
  private static final Pattern TEXT = Pattern.compile(
      "v?(0|[1-9]\\d{0,17})\\.(0|[1-9]\\d{0,17})\\.(0|[1-9]\\d{0,17})"
          + "(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?");
  private static final Pattern NUMERIC = Pattern.compile("\\d+");

  public Version {
    if (major < 0 || minor < 0 || patch < 0) {
      throw new IllegalArgumentException("version numbers (" + major + "." + minor + "." + patch + ") must be ≥ 0");
    }
    Objects.requireNonNull(preRelease, "preRelease");
    Objects.requireNonNull(buildMetadata, "buildMetadata");
    preRelease = List.copyOf(preRelease);
    for (String id : preRelease) {
      if (id.isEmpty() || !id.matches("[0-9A-Za-z-]+") || (NUMERIC.matcher(id).matches() && id.length() > 1
          && id.charAt(0) == '0')) {
        throw new IllegalArgumentException("pre-release identifier \"" + id + "\" must be alphanumeric or hyphen, "
            + "and a number without leading zeros");
      }
    }
    if (!buildMetadata.isEmpty() && !buildMetadata.matches("[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*")) {
      throw new IllegalArgumentException("build metadata \"" + buildMetadata + "\" must be dot-separated alphanumerics");
    }
  }

  /**
   * Parses a version.
   *
   * @throws IllegalArgumentException naming the text when it is not a version
   */
  public static Version parse(String text) {
    Objects.requireNonNull(text, "text");
    Matcher m = TEXT.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("bad version \"" + text + "\": write MAJOR.MINOR.PATCH[-PRE][+BUILD], "
          + "e.g. 1.2.0, 1.2.0-dev or 0.9.9-main.46");
    }
    List<String> pre = m.group(4) == null ? List.of() : List.of(m.group(4).split("\\.", -1));
    for (String id : pre) {
      if (NUMERIC.matcher(id).matches() && id.length() > 1 && id.charAt(0) == '0') {
        throw new IllegalArgumentException("bad version \"" + text + "\": numeric identifier " + id
            + " has a leading zero");
      }
    }
    return new Version(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), pre,
        m.group(5) == null ? "" : m.group(5));
  }

  /** Whether this is a release (no pre-release identifiers). */
  public boolean isRelease() {
    return preRelease.isEmpty();
  }

  /** The release of this version's series ({@code 0.9.9} for {@code 0.9.9-main.46}). */
  public Version release() {
    return new Version(major, minor, patch, List.of(), "");
  }

  @Override
  public int compareTo(Version o) {
    int c = Long.compare(major, o.major);
    if (c == 0) {
      c = Long.compare(minor, o.minor);
    }
    if (c == 0) {
      c = Long.compare(patch, o.patch);
    }
    if (c != 0) {
      return c;
    }
    if (preRelease.isEmpty() || o.preRelease.isEmpty()) {
      return Boolean.compare(preRelease.isEmpty(), o.preRelease.isEmpty());
    }
    for (int i = 0; i < Math.min(preRelease.size(), o.preRelease.size()); i++) {
      c = compareIdentifier(preRelease.get(i), o.preRelease.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(preRelease.size(), o.preRelease.size());
  }

  private static int compareIdentifier(String a, String b) {
    boolean an = NUMERIC.matcher(a).matches();
    boolean bn = NUMERIC.matcher(b).matches();
    if (an && bn) {
      return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : Integer.signum(a.compareTo(b));
    }
    if (an != bn) {
      return an ? -1 : 1;
    }
    return Integer.signum(a.compareTo(b));
  }

  /** Equal in precedence (build metadata ignored). */
  @Override
  public boolean equals(Object o) {
    return o instanceof Version v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(major, minor, patch, preRelease);
  }

  /** The canonical text, without a leading {@code v}: {@code 1.2.0-dev+meta}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder().append(major).append('.').append(minor).append('.').append(patch);
    if (!preRelease.isEmpty()) {
      b.append('-').append(String.join(".", preRelease));
    }
    if (!buildMetadata.isEmpty()) {
      b.append('+').append(buildMetadata);
    }
    return b.toString();
  }
}
