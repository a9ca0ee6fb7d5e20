package dev.vigil.coordination.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables and the constraints that carry the laws, as versioned forward-only migrations, each
 * recorded in {@code schema_version}. The tables are those of the H2 store at its schema version 9
 * (DESIGN.md §3, coordination-h2's {@code Schema}), written for PostgreSQL; this store starts at its
 * own version 1 with all of them, and later versions are appended here.
 *
 * <p>Version 1:
 * <ul>
 *   <li>{@code leases.ticket_id} PRIMARY KEY and {@code leases.run_id} UNIQUE: one lease per ticket
 *       and per run (C1); a lease names a run of its own ticket (CHECK) and FKs to tickets and runs.
 *   <li>{@code runs.run_id} is the printed id {@code t-N.k} (CHECK) with {@code (ticket_id, number)}
 *       UNIQUE and an FK to tickets; CHECKs tie state to the columns each state needs: a verdict
 *       exactly when SETTLED (C8), an identity once started (Q3), an exit owner once exited (C6).
 *   <li>{@code tickets}: CHECK on state, a hold reason exactly when HELD, {@code idempotency_key}
 *       UNIQUE (nullable), {@code retry_of} UNIQUE (a ticket is retried once), an FK to {@code lanes},
 *       which also records parked lanes (Q9); {@code ticket_labels} and {@code ticket_after} (Q14).
 *   <li>{@code counters} hands out ticket, event, question and transcript numbers transactionally (no
 *       gaps, from 1; the row lock orders the writers, so numbers are visible in commit order).
 *   <li>{@code owners}, {@code events}, {@code run_results}, {@code schedules} (Q15), {@code questions}
 *       (Q16), {@code checkpoints} (Q17), {@code service_transcript} (S7), {@code pruned_runs} and
 *       {@code maintenance} (Q18), each as in the H2 store.
 * </ul>
 *
 * <p>Version 2: a trigger on {@code tickets} notifies the channel
 * {@value PostgresCoordination#CHANNEL} (with the schema as its payload) whenever a ticket becomes
 * READY (submitted, retried, released, rolled back), so that the daemons of every host sharing the
 * store look at the queue at once ({@link PostgresCoordination#onNewWork}). The notification is sent
 * when the transaction commits, and PostgreSQL folds the equal ones of one transaction into one.
 *
 * <p>PostgreSQL runs DDL inside transactions: a migration is applied with its {@code schema_version}
 * row in one transaction, so a crash leaves the schema at the previous version, never between two.
 * Daemons of several hosts may open the store at once: the migration holds a transaction-scoped
 * advisory lock named after the schema, so one migrates and the others then find it done.
 */
final class Schema {
  /** The newest schema this build writes. */
  static final int CURRENT_VERSION = 2;

  private record Migration(int version, String description, List<String> statements) {}

  private static final String VERDICTS = "'SUCCEEDED', 'FAILED', 'PERMANENT_FAILURE', 'STALLED', 'BLOCKED', 'LOST', "
      + "'ABANDONED', 'SUPERSEDED', 'KILLED'";
  private static final String EVENT_KINDS = "'SETTLED', 'HELD', 'CANCELLED', 'KILL', 'TIMEOUT', 'SERVICE_GIVEN_UP',"
      + " 'QUESTION'";

  private static final List<Migration> MIGRATIONS = List.of(new Migration(1,
      "tickets, runs, leases, lanes, owners, counters, events, results, schedules, questions, checkpoints,"
          + " transcripts, maintenance",
      List.of(
          """
          CREATE TABLE schema_version (
            version INT NOT NULL PRIMARY KEY CHECK (version >= 1),
            description VARCHAR(200) NOT NULL,
            applied_at TIMESTAMP WITH TIME ZONE NOT NULL
          )""",
          """
          CREATE TABLE counters (
            name VARCHAR(32) NOT NULL PRIMARY KEY,
            issued BIGINT NOT NULL CHECK (issued >= 0)
          )""",
          "INSERT INTO counters(name, issued) VALUES ('ticket_seq', 0), ('event_seq', 0), ('question_seq', 0),"
              + " ('transcript_seq', 0)",
          """
          CREATE TABLE lanes (
            name VARCHAR(32) NOT NULL PRIMARY KEY,
            parked BOOLEAN NOT NULL
          )""",
          """
          CREATE TABLE owners (
            owner_id VARCHAR(128) NOT NULL PRIMARY KEY,
            host VARCHAR NOT NULL,
            boot_id VARCHAR NOT NULL,
            pid BIGINT NOT NULL CHECK (pid > 0),
            start_ticks BIGINT NOT NULL CHECK (start_ticks >= 0),
            pgid BIGINT NOT NULL CHECK (pgid > 0),
            build VARCHAR NOT NULL,
            started_at_ms BIGINT NOT NULL,
            host_id VARCHAR(64)
          )""",
          """
          CREATE TABLE tickets (
            id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
            lane VARCHAR(32) NOT NULL REFERENCES lanes(name),
            type VARCHAR(64) NOT NULL,
            payload VARCHAR NOT NULL,
            state VARCHAR(9) NOT NULL
              CHECK (state IN ('READY', 'LEASED', 'SUCCEEDED', 'HELD', 'FAILED', 'CANCELLED')),
            attempts_used INT NOT NULL CHECK (attempts_used >= 0),
            max_attempts INT NOT NULL CHECK (max_attempts >= 1),
            priority INT NOT NULL,
            not_before_ms BIGINT NOT NULL,
            created_at_ms BIGINT NOT NULL,
            parked BOOLEAN NOT NULL,
            hold_reason VARCHAR,
            spawn_failures INT NOT NULL CHECK (spawn_failures >= 0),
            idempotency_key VARCHAR(200) UNIQUE,
            work_dir VARCHAR(4096),
            env VARCHAR,
            timeout_ms BIGINT DEFAULT 0 NOT NULL CHECK (timeout_ms >= 0),
            labels VARCHAR DEFAULT '' NOT NULL,
            attempts_granted INT DEFAULT 0 NOT NULL CHECK (attempts_granted >= 0),
            retry_of BIGINT REFERENCES tickets(id),
            retried_as BIGINT REFERENCES tickets(id),
            held_for BIGINT REFERENCES tickets(id),
            CONSTRAINT tickets_hold_reason_exactly_when_held CHECK ((state = 'HELD') = (hold_reason IS NOT NULL))
          )""",
          "CREATE INDEX tickets_claim_order ON tickets(lane, state, priority DESC, created_at_ms, id)",
          "CREATE UNIQUE INDEX tickets_retried_once ON tickets(retry_of)",
          """
          CREATE TABLE ticket_labels (
            ticket_id BIGINT NOT NULL REFERENCES tickets(id),
            label VARCHAR(64) NOT NULL,
            label_value VARCHAR(200) NOT NULL,
            PRIMARY KEY (ticket_id, label)
          )""",
          "CREATE INDEX ticket_labels_by_value ON ticket_labels(label, label_value, ticket_id)",
          """
          CREATE TABLE ticket_after (
            ticket_id BIGINT NOT NULL REFERENCES tickets(id),
            prerequisite_id BIGINT NOT NULL REFERENCES tickets(id),
            PRIMARY KEY (ticket_id, prerequisite_id),
            CONSTRAINT ticket_after_another_ticket CHECK (ticket_id <> prerequisite_id)
          )""",
          "CREATE INDEX ticket_after_dependents ON ticket_after(prerequisite_id, ticket_id)",
          """
          CREATE TABLE runs (
            run_id VARCHAR(32) NOT NULL PRIMARY KEY,
            ticket_id BIGINT NOT NULL REFERENCES tickets(id),
            number INT NOT NULL CHECK (number >= 1),
            attempt INT NOT NULL CHECK (attempt >= 1),
            state VARCHAR(7) NOT NULL CHECK (state IN ('CLAIMED', 'RUNNING', 'EXITED', 'SETTLED')),
            owner_id VARCHAR(128) NOT NULL,
            claimed_at_ms BIGINT NOT NULL,
            hand_started BOOLEAN NOT NULL,
            boot_id VARCHAR,
            pid BIGINT CHECK (pid > 0),
            start_ticks BIGINT CHECK (start_ticks >= 0),
            pgid BIGINT CHECK (pgid > 0),
            build VARCHAR,
            token_hash CHAR(64),
            started_at_ms BIGINT,
            exit_code INT CHECK (exit_code BETWEEN 0 AND 255),
            exit_signal INT CHECK (exit_signal BETWEEN 1 AND 128),
            exit_at_ms BIGINT,
            exit_role VARCHAR(10) CHECK (exit_role IN ('SUPERVISOR', 'RECOVERY')),
            exit_owner_id VARCHAR(128),
            verdict VARCHAR(17),
            diagnosis VARCHAR,
            stop_intent VARCHAR(10) CHECK (stop_intent IN ('TIMEOUT', 'KILL', 'KILL_RETRY', 'KILL_HOLD')),
            timeout_ms BIGINT DEFAULT 0 NOT NULL CHECK (timeout_ms >= 0),
            CONSTRAINT runs_verdict_known CHECK (verdict IN (""" + VERDICTS + """
          )),
            CONSTRAINT runs_number_unique UNIQUE (ticket_id, number),
            CONSTRAINT runs_id_is_ticket_and_number CHECK (run_id = 't-' || ticket_id || '.' || number),
            CONSTRAINT runs_c8_verdict_exactly_when_settled CHECK ((state = 'SETTLED') = (verdict IS NOT NULL)),
            CONSTRAINT runs_q3_identity_exactly_when_started CHECK (
              (started_at_ms IS NOT NULL) = (state <> 'CLAIMED' AND COALESCE(verdict, '') <> 'ABANDONED')
              AND (started_at_ms IS NULL) = (boot_id IS NULL) AND (boot_id IS NULL) = (pid IS NULL)
              AND (pid IS NULL) = (start_ticks IS NULL) AND (start_ticks IS NULL) = (pgid IS NULL)
              AND (pgid IS NULL) = (build IS NULL) AND (build IS NULL) = (token_hash IS NULL)),
            CONSTRAINT runs_c6_exit_owner_exactly_when_exited CHECK (
              (exit_role IS NOT NULL) = (state = 'EXITED' OR (state = 'SETTLED' AND verdict <> 'ABANDONED'))
              AND (exit_role IS NULL) = (exit_owner_id IS NULL) AND (exit_role IS NULL) = (exit_at_ms IS NULL)
              AND (exit_code IS NULL OR exit_signal IS NULL))
          )""",
          "CREATE INDEX runs_state ON runs(state)",
          """
          CREATE TABLE leases (
            ticket_id BIGINT NOT NULL PRIMARY KEY REFERENCES tickets(id),
            run_id VARCHAR(32) NOT NULL UNIQUE REFERENCES runs(run_id),
            owner_id VARCHAR(128) NOT NULL,
            expires_at_ms BIGINT NOT NULL,
            CONSTRAINT leases_name_a_run_of_their_ticket CHECK (run_id LIKE 't-' || ticket_id || '.%')
          )""",
          "CREATE INDEX leases_owner ON leases(owner_id)",
          """
          CREATE TABLE events (
            id BIGINT NOT NULL PRIMARY KEY CHECK (id >= 1),
            at_ms BIGINT NOT NULL,
            kind VARCHAR(16) NOT NULL,
            ticket_id BIGINT REFERENCES tickets(id),
            run_id VARCHAR(32) REFERENCES runs(run_id),
            service VARCHAR(64),
            verdict VARCHAR(17),
            ticket_state VARCHAR(9),
            note VARCHAR NOT NULL,
            CONSTRAINT events_kind_known CHECK (kind IN (""" + EVENT_KINDS + """
          )),
            CONSTRAINT events_about_a_ticket_or_a_service CHECK ((ticket_id IS NULL) <> (service IS NULL)),
            CONSTRAINT events_a_verdict_exactly_for_a_settlement CHECK ((kind = 'SETTLED') = (verdict IS NOT NULL))
          )""",
          "CREATE INDEX events_by_ticket ON events(ticket_id)",
          "CREATE INDEX events_by_run ON events(run_id)",
          """
          CREATE TABLE run_results (
            run_id VARCHAR(32) NOT NULL PRIMARY KEY REFERENCES runs(run_id),
            result VARCHAR(65536) NOT NULL
          )""",
          """
          CREATE TABLE schedules (
            name VARCHAR(32) NOT NULL PRIMARY KEY,
            cron VARCHAR(200) NOT NULL,
            zone VARCHAR(64) NOT NULL,
            lane VARCHAR(32) NOT NULL,
            type VARCHAR(64) NOT NULL,
            payload VARCHAR NOT NULL,
            max_attempts INT NOT NULL CHECK (max_attempts >= 1),
            priority INT NOT NULL,
            work_dir VARCHAR(4096),
            env VARCHAR,
            timeout_ms BIGINT NOT NULL CHECK (timeout_ms >= 0),
            labels VARCHAR NOT NULL,
            catch_up VARCHAR(6) NOT NULL CHECK (catch_up IN ('NONE', 'LATEST', 'ALL')),
            overlap VARCHAR(8) NOT NULL CHECK (overlap IN ('SKIP', 'QUEUE', 'PARALLEL')),
            origin VARCHAR(7) NOT NULL CHECK (origin IN ('CONFIG', 'COMMAND')),
            paused BOOLEAN NOT NULL,
            created_at_ms BIGINT NOT NULL,
            last_fire_ms BIGINT NOT NULL,
            pending_fire_ms BIGINT,
            last_ticket_id BIGINT REFERENCES tickets(id),
            last_ticket_fire_ms BIGINT,
            CONSTRAINT schedules_last_ticket_with_its_fire CHECK ((last_ticket_id IS NULL) = (last_ticket_fire_ms IS NULL))
          )""",
          """
          CREATE TABLE questions (
            id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
            question_key VARCHAR(200) NOT NULL UNIQUE,
            text VARCHAR(1000) NOT NULL,
            asked_by VARCHAR(32),
            ticket_id BIGINT,
            service VARCHAR(128),
            options VARCHAR NOT NULL,
            state VARCHAR(8) NOT NULL CHECK (state IN ('OPEN', 'ANSWERED', 'APPLIED')),
            asked_at_ms BIGINT NOT NULL,
            answer VARCHAR(32),
            answered_at_ms BIGINT DEFAULT 0 NOT NULL,
            outcome VARCHAR,
            applied_at_ms BIGINT DEFAULT 0 NOT NULL,
            CONSTRAINT questions_an_answer_exactly_when_not_open CHECK ((state = 'OPEN') = (answer IS NULL)),
            CONSTRAINT questions_q16_an_outcome_exactly_when_applied CHECK ((state = 'APPLIED') = (outcome IS NOT NULL))
          )""",
          "CREATE INDEX questions_state ON questions(state)",
          """
          CREATE TABLE checkpoints (
            ticket_id BIGINT NOT NULL PRIMARY KEY REFERENCES tickets(id),
            run_id VARCHAR(32) NOT NULL REFERENCES runs(run_id),
            seq BIGINT NOT NULL CHECK (seq >= 1),
            saved_at_ms BIGINT NOT NULL,
            checkpoint VARCHAR(65536) NOT NULL
          )""",
          """
          CREATE TABLE service_transcript (
            id BIGINT NOT NULL PRIMARY KEY CHECK (id >= 1),
            service VARCHAR(64) NOT NULL,
            at_ms BIGINT NOT NULL,
            kind VARCHAR(10) NOT NULL CHECK (kind IN ('LAUNCHED', 'ADOPTED', 'EXITED', 'RESTARTING', 'GIVEN_UP', 'DOWN',
              'RESTORED')),
            text VARCHAR(1000) NOT NULL,
            output_at BIGINT NOT NULL CHECK (output_at >= 0),
            restore_id VARCHAR(200),
            CONSTRAINT service_transcript_restore_id_exactly_for_a_restore CHECK ((kind = 'RESTORED') = (restore_id IS NOT NULL)),
            CONSTRAINT service_transcript_one_notice_per_restore UNIQUE (service, restore_id)
          )""",
          "CREATE INDEX service_transcript_by_service ON service_transcript(service, id)",
          """
          CREATE TABLE pruned_runs (
            run_id VARCHAR(32) NOT NULL PRIMARY KEY,
            pruned_at_ms BIGINT NOT NULL
          )""",
          """
          CREATE TABLE maintenance (
            job VARCHAR(32) NOT NULL PRIMARY KEY,
            at_ms BIGINT NOT NULL,
            summary VARCHAR(1000) NOT NULL
          )""")),
      new Migration(2, "a notification to the daemons when a ticket becomes claimable", List.of(
          """
          CREATE FUNCTION notify_ready() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            PERFORM pg_notify('""" + PostgresCoordination.CHANNEL + """
          ', TG_TABLE_SCHEMA);
            RETURN NULL;
          END
          $$""",
          """
          CREATE TRIGGER tickets_ready AFTER INSERT OR UPDATE OF state ON tickets
            FOR EACH ROW WHEN (NEW.state = 'READY') EXECUTE FUNCTION notify_ready()""")));

  private Schema() {}

  /**
   * The schema version of the store in {@code schema}: 0 when the schema does not exist or holds no
   * table.
   *
   * @throws PostgresStoreException for a schema that holds tables but no {@code schema_version}
   */
  static int versionOf(Connection c, String schema, String where) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT table_name FROM information_schema.tables"
        + " WHERE table_schema = ? ORDER BY table_name")) {
      p.setString(1, schema);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
    }
    if (!tables.contains("schema_version")) {
      if (!tables.isEmpty()) {
        throw new PostgresStoreException("cannot open " + where + ": the schema holds tables but is not a Vigil"
            + " store (tables " + tables + ", no schema_version); choose another schema");
      }
      return 0;
    }
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Refuses a store written by a newer schema, naming both versions. */
  static void requireSupported(int found, String where) {
    if (found > CURRENT_VERSION) {
      throw new PostgresStoreException("cannot open " + where + ": its schema version " + found
          + " is newer than this build supports (" + CURRENT_VERSION + "); use a newer Vigil");
    }
  }

  /**
   * Creates the schema when absent and applies every migration above its version, in order, each in
   * its own transaction with its {@code schema_version} row, under the schema's advisory lock; returns
   * the version reached. The connection's search path names the schema; autocommit is off.
   */
  static int migrate(Connection c, String schema, String where) throws SQLException {
    lock(c, schema);
    int version = versionOf(c, schema, where);
    requireSupported(version, where);
    if (version == CURRENT_VERSION) {
      c.commit();
      return version;
    }
    try (Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
    }
    for (Migration m : MIGRATIONS) {
      if (m.version() <= version) {
        continue;
      }
      try (Statement s = c.createStatement()) {
        s.execute(String.join(";\n", m.statements())); // one round trip; still one transaction
      }
      try (PreparedStatement p = c.prepareStatement(
          "INSERT INTO schema_version(version, description, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)")) {
        p.setInt(1, m.version());
        p.setString(2, m.description());
        p.executeUpdate();
      }
      c.commit();
      lock(c, schema);
      // another daemon may have taken the lock between the commit and this lock, and migrated further
      version = versionOf(c, schema, where);
    }
    c.commit();
    return version;
  }

  /** The transaction-scoped advisory lock that orders the migrations of one schema across hosts. */
  private static void lock(Connection c, String schema) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
      p.setString(1, "vigil schema " + schema);
      p.executeQuery().close();
    }
  }
}
