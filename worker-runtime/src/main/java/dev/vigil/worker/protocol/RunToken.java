package dev.vigil.worker.protocol;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A worker's only credential (C9): 256 random bits, written as 64 lower-case hex digits, given to
 * the worker in the environment variable {@link #ENV} (never on its command line), and stored by the
 * daemon only as its SHA-256 ({@link #hash(String)}, the {@code token_hash} of {@code RunStart}).
 * {@link #matches(String, String)} compares in constant time.
 */
public final class RunToken {
  /** The environment variable that carries the token to the worker, and only there. */
  public static final String ENV = "VIGIL_RUN_TOKEN";
  /** Random bytes per token (256 bits). */
  private static final int BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private RunToken() {}

  /** A fresh token. */
  public static String generate() {
    byte[] b = new byte[BYTES];
    RANDOM.nextBytes(b);
    return HEX.formatHex(b);
  }

  /** SHA-256 of the token's UTF-8 bytes, 64 lower-case hex digits. */
  public static String hash(String token) {
    return HEX.formatHex(digest(Objects.requireNonNull(token, "token")));
  }

  /** Whether {@code token} hashes to {@code storedHash}, compared in constant time. */
  public static boolean matches(String token, String storedHash) {
    if (token == null || storedHash == null || storedHash.length() != 2 * BYTES) {
      return false;
    }
    byte[] expected;
    try {
      expected = HEX.parseHex(storedHash);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(digest(token), expected);
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
