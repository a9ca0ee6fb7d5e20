package dev.vigil.worker.host;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * SLF4J inside a worker host: warnings and errors of Vigil's own classes (the socket protocol's) as
 * lines of the host's log on stderr ({@link HostLog}), nothing below. A host's classpath holds
 * Vigil's jars and its type's entries, not the binding of the application that started the daemon,
 * so {@link #select} names this provider before the host makes any logger: every host logs the same
 * way, and SLF4J never adds its notice that it found no binding to the run's {@code stderr.log}.
 * Public only because SLF4J constructs it by name.
 */
public final class HostLogProvider implements SLF4JServiceProvider {
  /** SLF4J's system property naming the provider to use, read once at its first logger. */
  static final String PROVIDER = "slf4j.provider";
  /** SLF4J's system property for its own reports: only warnings, not that it loaded the provider named. */
  static final String VERBOSITY = "slf4j.internal.verbosity";

  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();
  private final ILoggerFactory loggers = HostLogger::new;

  /** Makes this the host's provider, unless the host's command names one itself. */
  static void select() {
    if (System.getProperty(PROVIDER) == null) {
      System.setProperty(PROVIDER, HostLogProvider.class.getName());
      if (System.getProperty(VERBOSITY) == null) {
        System.setProperty(VERBOSITY, "WARN");
      }
    }
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    // nothing to set up: each line goes straight to stderr
  }

  /** A logger that writes WARN and ERROR as host log lines. */
  private static final class HostLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    HostLogger(String name) {
      this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return false;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                               Throwable thrown) {
      String simple = name.substring(name.lastIndexOf('.') + 1);
      HostLog.info(level + " " + simple + ": " + MessageFormatter.basicArrayFormat(pattern, arguments)
          + (thrown == null ? "" : ": " + thrown));
    }
  }
}
