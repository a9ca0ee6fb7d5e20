package dev.vigil.launcher.internal;

/** Bad configuration or command-line input: the message is one line naming what was wrong. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
