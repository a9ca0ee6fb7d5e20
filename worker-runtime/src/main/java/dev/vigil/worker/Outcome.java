package dev.vigil.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Verdict;
import dev.vigil.worker.internal.Json;
import java.util.Objects;

/**
 * How a worker type's run ended, in its own words. The worker host writes it durably to
 * {@code outcome.json} before it reports it (no outcome lost, DESIGN.md §1.4); the daemon settles the
 * run with {@link #verdict()}. A detail is prose for humans; one longer than {@link #MAX_DETAIL}
 * characters is cut there and ends with {@code …}.
 *
 * <p>A success may carry a result ({@link #succeeded(Object)}): any JSON value, kept with the run in
 * the store and shown by {@code vigil show} and the embedding façade's {@code runResult}. It travels in
 * {@code outcome.json}, so it is as durable as the verdict: a daemon that was down when the worker
 * ended still settles the run with it. A result is at most {@link #MAX_RESULT_BYTES} bytes of JSON;
 * a larger one, or one Jackson cannot write, is refused where it is given
 * ({@link ResultRefusedException}), and the run settles PERMANENT_FAILURE saying why.
 */
public sealed interface Outcome {
  /** Longest detail kept, characters. */
  int MAX_DETAIL = 4_096;

  /** Largest result kept, bytes of UTF-8 JSON (64 KiB). */
  int MAX_RESULT_BYTES = Run.MAX_RESULT_BYTES;

  /** The verdict the run settles with. */
  Verdict verdict();

  /** What happened, for humans; may be empty. */
  String detail();

  /**
   * The work succeeded: the ticket is done.
   *
   * @param detail what happened, for humans
   * @param result what the work produced, kept with the run, or {@code null} for none (a JSON
   *               {@code null} is none too); held as a copy, and {@link #result()} returns a copy
   * @throws ResultRefusedException when the result is over {@link #MAX_RESULT_BYTES} bytes of JSON
   */
  record Succeeded(String detail, JsonNode result) implements Outcome {
    public Succeeded {
      detail = cut(detail);
      result = bounded(result);
    }

    /** A success without a result. */
    public Succeeded(String detail) {
      this(detail, null);
    }

    /** A copy of the result, or {@code null} when there is none. */
    @Override
    public JsonNode result() {
      return result == null ? null : result.deepCopy();
    }

    @Override
    public Verdict verdict() {
      return Verdict.SUCCEEDED;
    }
  }

  /**
   * The work succeeded with {@code result}: any value {@link JsonBinding#toJson} writes (a record, a
   * bean, a map or list, a {@link JsonNode}; a {@code String} is a JSON string), kept with the run.
   * {@code null} is no result.
   *
   * @throws ResultRefusedException when the result cannot be written as JSON or is over
   *                                {@link #MAX_RESULT_BYTES} bytes of it; escaping {@link WorkerType#run},
   *                                it settles the run PERMANENT_FAILURE (see that class for why)
   */
  static Outcome succeeded(Object result) {
    return succeeded(result, "");
  }

  /** {@link #succeeded(Object)} with a detail for humans. */
  static Outcome succeeded(Object result, String detail) {
    JsonNode json;
    try {
      json = JsonBinding.toJson(result);
    } catch (IllegalArgumentException e) {
      throw new ResultRefusedException("result refused: " + e.getMessage(), e.getCause());
    }
    return new Succeeded(detail, json);
  }

  /** The work failed and may be retried: consumes an attempt (Q1). */
  record Failed(String detail) implements Outcome {
    public Failed {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.FAILED;
    }
  }

  /** The work can never succeed: the ticket fails at once. */
  record PermanentFailure(String detail) implements Outcome {
    public PermanentFailure {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.PERMANENT_FAILURE;
    }
  }

  /**
   * The machine hit a quota: no attempt consumed, the ticket is READY again at {@code untilMs} (Q2).
   *
   * @param untilMs wall-clock ms before which the ticket should not run again
   */
  record Stalled(long untilMs, String detail) implements Outcome {
    public Stalled {
      if (untilMs < 0) {
        throw new IllegalArgumentException("untilMs (" + untilMs + ") must be >= 0");
      }
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.STALLED;
    }
  }

  /** The work could not proceed for a reason outside it: no attempt consumed, the ticket is HELD. */
  record Blocked(String detail) implements Outcome {
    public Blocked {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.BLOCKED;
    }
  }

  /**
   * The outcome with {@code verdict}; {@code untilMs} is read only for STALLED.
   *
   * @throws IllegalArgumentException for a verdict no worker gives (LOST, ABANDONED, SUPERSEDED, KILLED)
   */
  static Outcome of(Verdict verdict, String detail, long untilMs) {
    Objects.requireNonNull(verdict, "verdict");
    return switch (verdict) {
      case SUCCEEDED -> new Succeeded(detail);
      case FAILED -> new Failed(detail);
      case PERMANENT_FAILURE -> new PermanentFailure(detail);
      case STALLED -> new Stalled(untilMs, detail);
      case BLOCKED -> new Blocked(detail);
      case LOST, ABANDONED, SUPERSEDED, KILLED -> throw new IllegalArgumentException(
          "verdict " + verdict + " is not one a worker gives (SUCCEEDED, FAILED, PERMANENT_FAILURE, STALLED, BLOCKED)");
    };
  }

  /**
   * A result as a success keeps it: none for {@code null} or a JSON {@code null}, else at most
   * {@link #MAX_RESULT_BYTES} bytes of JSON, as the tree that reading them back gives (a copy, with the
   * node types that {@code outcome.json} read back has, so a result equals itself after the trip).
   */
  private static JsonNode bounded(JsonNode result) {
    if (result == null || result.isNull() || result.isMissingNode()) {
      return null;
    }
    byte[] json;
    try {
      json = Json.write(result);
    } catch (IllegalArgumentException e) {
      throw new ResultRefusedException("result refused: " + e.getMessage(), e);
    }
    if (json.length > MAX_RESULT_BYTES) {
      throw new ResultRefusedException("result refused: it is " + json.length + " bytes of JSON, more than the "
          + MAX_RESULT_BYTES + " a run keeps (keep large output elsewhere and return where it is)", null);
    }
    try {
      return Json.parse(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("a result written as JSON does not read back", e);
    }
  }

  private static String cut(String detail) {
    Objects.requireNonNull(detail, "detail");
    return detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL - 1) + "…";
  }
}
