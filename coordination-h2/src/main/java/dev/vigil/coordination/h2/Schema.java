package dev.vigil.coordination.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables and the constraints that carry the laws, as versioned forward-only migrations.
 *
 * <p>Version 1:
 * <ul>
 *   <li>{@code leases.ticket_id} PRIMARY KEY and {@code leases.run_id} UNIQUE: one lease per ticket
 *       and per run (C1); a lease names a run of its own ticket (CHECK) and FKs to tickets and runs.
 *   <li>{@code runs.run_id} is the printed id {@code t-N.k} (CHECK) with {@code (ticket_id, number)}
 *       UNIQUE and an FK to tickets; CHECKs tie state to the columns each state needs: a verdict
 *       exactly when SETTLED (C8), an identity once started (Q3), an exit owner once exited (C6).
 *   <li>{@code tickets}: CHECK on state, a hold reason exactly when HELD, {@code idempotency_key}
 *       UNIQUE (nullable), an FK to {@code lanes}, which also records parked lanes (Q9).
 *   <li>{@code counters} hands out ticket sequence numbers transactionally (no gaps, from 1).
 *   <li>{@code owners}: one row per daemon incarnation.
 * </ul>
 *
 * <p>Version 2 (task control), every new column with a default that an older row reads as before:
 * <ul>
 *   <li>{@code tickets}: {@code work_dir} (NULL: the run directory), {@code env} (the recorded
 *       environment, encoded by {@code Rows}; NULL: none recorded), {@code timeout_ms} (0),
 *       {@code labels} (encoded, '' for none), {@code attempts_granted} (0), {@code retry_of} and
 *       {@code retried_as} (NULL; FKs to tickets, {@code retry_of} UNIQUE: a ticket is retried once).
 *   <li>{@code ticket_labels}: one row per label, for filtering in the query
 *       ({@code (name, value, ticket_id)} indexed).
 *   <li>{@code runs}: {@code stop_intent} (NULL, Q12/Q13) and {@code timeout_ms} (0, the run's time
 *       limit fixed at its start); the verdict CHECK allows KILLED.
 *   <li>{@code events}: the event stream, ids from the {@code event_seq} counter (no gaps, commit
 *       order); settlements made before version 2 are written into it once, in run order, so that
 *       every settlement is reported exactly once.
 * </ul>
 *
 * <p>Version 3 (worker results):
 * <ul>
 *   <li>{@code run_results}: one row per run that settled SUCCEEDED with a result ({@code run_id}
 *       PRIMARY KEY, an FK to runs; {@code result}, the JSON text the worker returned, at most 64 KiB,
 *       which {@code Finish} checks in bytes). Written once, in the transaction of the finish, and never
 *       updated. A table of its own rather than a column of {@code runs}: a run's row changes at each
 *       step of its life, and in the append-only store every change rewrites the page that holds it
 *       with its neighbours, so results stay out of those pages. An older run has no row: no result.
 * </ul>
 *
 * <p>Also in version 3 (events of cancellations): the {@code events.kind} CHECK allows {@code CANCELLED}, so that
 * a cancel, a retry of a held ticket and a kill of a run that never started are reported in the stream
 * like every other move of a ticket to a finished state or HELD. No row changes; a build that does not
 * know the kind refuses the database by its version instead of failing on a row.
 *
 * <p>Version 4 (task dependencies, Q14):
 * <ul>
 *   <li>{@code ticket_after}: one row per prerequisite of a ticket ({@code (ticket_id, prerequisite_id)}
 *       PRIMARY KEY, both FKs to tickets, never the same ticket), and an index on
 *       {@code (prerequisite_id, ticket_id)} that finds a ticket's dependents. The claim statements
 *       ask with the primary key's index whether a ticket has a prerequisite not SUCCEEDED, in the
 *       same statement. A retry that stands for a prerequisite moves the rows onto the retry.
 *   <li>{@code tickets.held_for} (NULL; an FK to tickets): the prerequisite whose end holds a HELD
 *       ticket, set only for such a dependency hold. An older ticket waits for nothing.
 * </ul>
 *
 * <p>Version 5 (recurring schedules, Q15): {@code schedules}, one row per schedule ({@code name} PRIMARY
 * KEY): its definition (cron text, zone, the ticket each fire submits, in the columns a ticket uses, and
 * the catch-up and overlap policies, each with a CHECK), where it was defined ({@code origin}), and its
 * fire state: {@code last_fire_ms} (the latest fire decided), {@code pending_fire_ms} (a fire waiting for
 * the previous ticket), {@code last_ticket_id} (an FK to tickets) with {@code last_ticket_fire_ms} (set
 * together, CHECK). A fire's ticket carries the key {@code schedule:NAME:FIRE_TIME} in
 * {@code tickets.idempotency_key}, whose UNIQUE stands behind the one ticket per fire. No row changes.
 *
 * <p>Version 6 (questions for a person, Q16), written by {@link #questionsMigration()}:
 * <ul>
 *   <li>{@code questions}: one row per question, {@code id} from the {@code question_seq} counter,
 *       {@code question_key} UNIQUE (asking again with a key names the earlier question), the asker (a run
 *       or none), the ticket or service it is about, its options as text ({@code QuestionOption.encodeAll}),
 *       {@code state} OPEN, ANSWERED or APPLIED with CHECKs: an answer exactly when not OPEN, an outcome
 *       exactly when APPLIED. The apply is a conditional update from ANSWERED in the transaction of the
 *       answer's actions, so it happens once.
 *   <li>{@code events.kind} also allows {@code QUESTION} (a question asked, written with it): the CHECK of
 *       version 3 is replaced by one of its own name.
 * </ul>
 *
 * <p>Version 7 (checkpoints, Q17): {@code checkpoints}, one row per ticket that keeps one ({@code ticket_id}
 * PRIMARY KEY, an FK to tickets): the run that saved it (an FK to runs), its number within that run, when it
 * was kept and its JSON text (at most 64 KiB, which {@code Checkpoint} checks in bytes). Replaced in place by
 * a newer checkpoint ({@link H2Checkpoints}); a table of its own, like {@code run_results}, so that the pages
 * of {@code runs} stay small. No row changes.
 * <p>Version 8 (service transcripts, S7), written by {@link #transcriptsMigration()}: {@code service_transcript},
 * one row per kept entry of a service's transcript ({@code id} from the {@code transcript_seq} counter, no gaps,
 * commit order), its kind with a CHECK, its text, the output mark {@code output_at} and, exactly for a RESTORED
 * entry (CHECK), its {@code restore_id}, with {@code (service, restore_id)} UNIQUE: a restore's notice is stored
 * once. Entries past a service's bound are deleted in the transaction that appends a newer one; the index on
 * {@code (service, id)} serves both the reads and that deletion. No row changes.
 * <p>Version 9 (maintenance, Q18), written by {@link #maintenanceMigration()}:
 * <ul>
 *   <li>{@code pruned_runs}: one row per run whose ticket a prune deleted and whose run directory is not
 *       recorded removed yet ({@code run_id} PRIMARY KEY, no reference: its run row is gone), written in the
 *       prune's transaction and deleted when the job records the directory removed.
 *   <li>{@code maintenance}: each maintenance job's last line ({@code job} PRIMARY KEY, {@code at_ms},
 *       {@code summary}), written in the transaction of the job's effect.
 * </ul>
 * <p>Version 10 (hosts, H1): {@code owners.host_id}, the stable id of the owner's host; NULL for an owner
 * registered before, which is of whichever host reads it (one host used each store then).
 *
 * <p>H2 commits each DDL statement on its own, so a migration is written to be re-run from any
 * point ({@code IF NOT EXISTS}); {@code schema_version} is created first, so a crash inside
 * version 1 leaves a database this class recognises and completes.
 */
final class Schema {
  /** The newest schema this build writes. */
  static final int CURRENT_VERSION = 10;

  /** One step of a migration: a statement, or code that reads the schema first. */
  interface Change {
    void apply(Connection c) throws SQLException;
  }

  private record Migration(int version, String description, List<Change> changes) {}

  private static Change sql(String statement) {
    return c -> {
      try (Statement s = c.createStatement()) {
        s.execute(statement);
      }
    };
  }

  private static List<Change> sql(List<String> statements) {
    return statements.stream().map(Schema::sql).toList();
  }

  private static final String VERDICTS = "'SUCCEEDED', 'FAILED', 'PERMANENT_FAILURE', 'STALLED', 'BLOCKED', 'LOST', "
      + "'ABANDONED', 'SUPERSEDED'";

  private static final List<Migration> MIGRATIONS = List.of(new Migration(1,
      "tickets, runs, leases, lanes, owners, counters",
      sql(List.of(
          """
          CREATE TABLE IF NOT EXISTS schema_version (
            version INT NOT NULL PRIMARY KEY CHECK (version >= 1),
            description VARCHAR(200) NOT NULL,
            applied_at TIMESTAMP WITH TIME ZONE NOT NULL
          )""",
          """
          CREATE TABLE IF NOT EXISTS counters (
            name VARCHAR(32) NOT NULL PRIMARY KEY,
            issued BIGINT NOT NULL CHECK (issued >= 0)
          )""",
          "INSERT INTO counters(name, issued) SELECT 'ticket_seq', 0 WHERE NOT EXISTS "
              + "(SELECT 1 FROM counters WHERE name = 'ticket_seq')",
          """
          CREATE TABLE IF NOT EXISTS lanes (
            name VARCHAR(32) NOT NULL PRIMARY KEY,
            parked BOOLEAN NOT NULL
          )""",
          """
          CREATE TABLE IF NOT EXISTS owners (
            owner_id VARCHAR(128) NOT NULL PRIMARY KEY,
            host VARCHAR NOT NULL,
            boot_id VARCHAR NOT NULL,
            pid BIGINT NOT NULL CHECK (pid > 0),
            start_ticks BIGINT NOT NULL CHECK (start_ticks >= 0),
            pgid BIGINT NOT NULL CHECK (pgid > 0),
            build VARCHAR NOT NULL,
            started_at_ms BIGINT NOT NULL
          )""",
          """
          CREATE TABLE IF NOT EXISTS tickets (
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
            CONSTRAINT tickets_hold_reason_exactly_when_held CHECK ((state = 'HELD') = (hold_reason IS NOT NULL))
          )""",
          "CREATE INDEX IF NOT EXISTS tickets_claim_order ON tickets(lane, state, priority DESC, created_at_ms, id)",
          """
          CREATE TABLE IF NOT EXISTS runs (
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
            verdict VARCHAR(17) CHECK (verdict IN ('SUCCEEDED', 'FAILED', 'PERMANENT_FAILURE', 'STALLED',
              'BLOCKED', 'LOST', 'ABANDONED', 'SUPERSEDED')),
            diagnosis VARCHAR,
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
          "CREATE INDEX IF NOT EXISTS runs_state ON runs(state)",
          """
          CREATE TABLE IF NOT EXISTS leases (
            ticket_id BIGINT NOT NULL PRIMARY KEY REFERENCES tickets(id),
            run_id VARCHAR(32) NOT NULL UNIQUE REFERENCES runs(run_id),
            owner_id VARCHAR(128) NOT NULL,
            expires_at_ms BIGINT NOT NULL,
            CONSTRAINT leases_name_a_run_of_their_ticket CHECK (run_id LIKE 't-' || ticket_id || '.%')
          )""",
          "CREATE INDEX IF NOT EXISTS leases_owner ON leases(owner_id)"))),
      new Migration(2, "task control: directories, environments, time limits, labels, grants, retries, kills, events",
          migration2()),
      new Migration(3, "worker results, events of cancellations", migration3()),
      new Migration(4, "task dependencies", migration4()),
      new Migration(5, "recurring schedules", migrationSchedules()),
      new Migration(6, "questions for a person", questionsMigration()),
      new Migration(7, "checkpoints", checkpointsMigration()),
      new Migration(8, "service transcripts", transcriptsMigration()),
      new Migration(9, "maintenance: run directories to remove, each job's last line", maintenanceMigration()),
      new Migration(10, "host ids of owners", sql(List.of(
          "ALTER TABLE owners ADD COLUMN IF NOT EXISTS host_id VARCHAR(64)"))));

  /** Version 8: the {@code service_transcript} table (see the class comment); re-runnable, so it can take another number. */
  private static List<Change> transcriptsMigration() {
    return sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS service_transcript (
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
        "CREATE INDEX IF NOT EXISTS service_transcript_by_service ON service_transcript(service, id)",
        "INSERT INTO counters(name, issued) SELECT 'transcript_seq', 0 WHERE NOT EXISTS "
            + "(SELECT 1 FROM counters WHERE name = 'transcript_seq')"));
  }

  /** Version 4: prerequisites and dependency holds (Q14); re-runnable from any point. */
  private static List<Change> migration4() {
    return sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS ticket_after (
          ticket_id BIGINT NOT NULL REFERENCES tickets(id),
          prerequisite_id BIGINT NOT NULL REFERENCES tickets(id),
          PRIMARY KEY (ticket_id, prerequisite_id),
          CONSTRAINT ticket_after_another_ticket CHECK (ticket_id <> prerequisite_id)
        )""",
        "CREATE INDEX IF NOT EXISTS ticket_after_dependents ON ticket_after(prerequisite_id, ticket_id)",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS held_for BIGINT REFERENCES tickets(id)"));
  }

  /** Version 5: the {@code schedules} table (see the class comment); re-runnable, so it can take another number. */
  private static List<Change> migrationSchedules() {
    return sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS schedules (
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
        )"""));
  }

  /** Version 7: the checkpoints table; re-runnable from any point. */
  private static List<Change> checkpointsMigration() {
    return sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS checkpoints (
          ticket_id BIGINT NOT NULL PRIMARY KEY REFERENCES tickets(id),
          run_id VARCHAR(32) NOT NULL REFERENCES runs(run_id),
          seq BIGINT NOT NULL CHECK (seq >= 1),
          saved_at_ms BIGINT NOT NULL,
          checkpoint VARCHAR(65536) NOT NULL
        )"""));
  }

  /** Version 9: the maintenance tables (see the class comment); re-runnable, so it can take another number. */
  private static List<Change> maintenanceMigration() {
    return sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS pruned_runs (
          run_id VARCHAR(32) NOT NULL PRIMARY KEY,
          pruned_at_ms BIGINT NOT NULL
        )""",
        """
        CREATE TABLE IF NOT EXISTS maintenance (
          job VARCHAR(32) NOT NULL PRIMARY KEY,
          at_ms BIGINT NOT NULL,
          summary VARCHAR(1000) NOT NULL
        )"""));
  }

  /** Version 6: the questions table and its counter, and QUESTION events; re-runnable from any point. */
  private static List<Change> questionsMigration() {
    List<Change> out = new ArrayList<>(sql(List.of(
        "ALTER TABLE events DROP CONSTRAINT IF EXISTS events_kind_known",
        "ALTER TABLE events ADD CONSTRAINT IF NOT EXISTS events_kind_known_with_questions CHECK (kind IN ("
            + EVENT_KINDS + ", 'QUESTION'))")));
    out.addAll(sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS questions (
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
        "CREATE INDEX IF NOT EXISTS questions_state ON questions(state)",
        "INSERT INTO counters(name, issued) SELECT 'question_seq', 0 WHERE NOT EXISTS "
            + "(SELECT 1 FROM counters WHERE name = 'question_seq')")));
    return out;
  }

  private static List<Change> migration3() {
    List<Change> out = new ArrayList<>(sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS run_results (
          run_id VARCHAR(32) NOT NULL PRIMARY KEY REFERENCES runs(run_id),
          result VARCHAR(65536) NOT NULL
        )""")));
    out.add(Schema::allowCancelledEvents);
    return out;
  }

  private static List<Change> migration2() {
    List<Change> out = new ArrayList<>(sql(List.of(
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS work_dir VARCHAR(4096)",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS env VARCHAR",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS timeout_ms BIGINT DEFAULT 0 NOT NULL CHECK (timeout_ms >= 0)",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS labels VARCHAR DEFAULT '' NOT NULL",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS attempts_granted INT DEFAULT 0 NOT NULL CHECK (attempts_granted >= 0)",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS retry_of BIGINT REFERENCES tickets(id)",
        "ALTER TABLE tickets ADD COLUMN IF NOT EXISTS retried_as BIGINT REFERENCES tickets(id)",
        "CREATE UNIQUE INDEX IF NOT EXISTS tickets_retried_once ON tickets(retry_of)",
        """
        CREATE TABLE IF NOT EXISTS ticket_labels (
          ticket_id BIGINT NOT NULL REFERENCES tickets(id),
          label VARCHAR(64) NOT NULL,
          label_value VARCHAR(200) NOT NULL,
          PRIMARY KEY (ticket_id, label)
        )""",
        "CREATE INDEX IF NOT EXISTS ticket_labels_by_value ON ticket_labels(label, label_value, ticket_id)",
        "ALTER TABLE runs ADD COLUMN IF NOT EXISTS stop_intent VARCHAR(10)"
            + " CHECK (stop_intent IN ('TIMEOUT', 'KILL', 'KILL_RETRY', 'KILL_HOLD'))",
        "ALTER TABLE runs ADD COLUMN IF NOT EXISTS timeout_ms BIGINT DEFAULT 0 NOT NULL CHECK (timeout_ms >= 0)")));
    out.add(Schema::allowKilled);
    out.addAll(sql(List.of(
        """
        CREATE TABLE IF NOT EXISTS events (
          id BIGINT NOT NULL PRIMARY KEY CHECK (id >= 1),
          at_ms BIGINT NOT NULL,
          kind VARCHAR(16) NOT NULL CHECK (kind IN ('SETTLED', 'HELD', 'KILL', 'TIMEOUT', 'SERVICE_GIVEN_UP')),
          ticket_id BIGINT REFERENCES tickets(id),
          run_id VARCHAR(32) REFERENCES runs(run_id),
          service VARCHAR(64),
          verdict VARCHAR(17),
          ticket_state VARCHAR(9),
          note VARCHAR NOT NULL,
          CONSTRAINT events_about_a_ticket_or_a_service CHECK ((ticket_id IS NULL) <> (service IS NULL)),
          CONSTRAINT events_a_verdict_exactly_for_a_settlement CHECK ((kind = 'SETTLED') = (verdict IS NOT NULL))
        )""",
        // settlements made before events were kept, once, in run order (guarded: a re-run adds none)
        "INSERT INTO events(id, at_ms, kind, ticket_id, run_id, verdict, ticket_state, note)"
            + " SELECT ROW_NUMBER() OVER (ORDER BY ticket_id, number),"
            + " COALESCE(exit_at_ms, started_at_ms, claimed_at_ms), 'SETTLED', ticket_id, run_id, verdict, NULL,"
            + " COALESCE(diagnosis, '') FROM runs"
            + " WHERE state = 'SETTLED' AND verdict <> 'ABANDONED' AND NOT EXISTS (SELECT 1 FROM events)",
        "INSERT INTO counters(name, issued) SELECT 'event_seq', 0 WHERE NOT EXISTS "
            + "(SELECT 1 FROM counters WHERE name = 'event_seq')",
        "UPDATE counters SET issued = (SELECT COALESCE(MAX(id), 0) FROM events) WHERE name = 'event_seq'")));
    return out;
  }

  /** The event kinds of version 3. */
  private static final String EVENT_KINDS = "'SETTLED', 'HELD', 'CANCELLED', 'KILL', 'TIMEOUT', 'SERVICE_GIVEN_UP'";

  /** Replaces version 2's kind CHECK (an unnamed column constraint) by one that allows CANCELLED. */
  private static void allowCancelledEvents(Connection c) throws SQLException {
    List<String> old = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT cc.CONSTRAINT_NAME FROM INFORMATION_SCHEMA.CHECK_CONSTRAINTS cc"
        + " JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc ON tc.CONSTRAINT_NAME = cc.CONSTRAINT_NAME"
        + " AND tc.CONSTRAINT_SCHEMA = cc.CONSTRAINT_SCHEMA"
        + " WHERE tc.TABLE_NAME = 'EVENTS' AND cc.CHECK_CLAUSE LIKE '%SERVICE_GIVEN_UP%'"
        + " AND cc.CHECK_CLAUSE NOT LIKE '%CANCELLED%'");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        old.add(rs.getString(1));
      }
    }
    try (Statement s = c.createStatement()) {
      for (String name : old) {
        s.execute("ALTER TABLE events DROP CONSTRAINT \"" + name + "\"");
      }
      s.execute("ALTER TABLE events ADD CONSTRAINT IF NOT EXISTS events_kind_known CHECK (kind IN (" + EVENT_KINDS
          + "))");
    }
  }

  /** Replaces version 1's verdict CHECK (an unnamed column constraint) by one that allows KILLED. */
  private static void allowKilled(Connection c) throws SQLException {
    List<String> old = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT cc.CONSTRAINT_NAME FROM INFORMATION_SCHEMA.CHECK_CONSTRAINTS cc"
        + " JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc ON tc.CONSTRAINT_NAME = cc.CONSTRAINT_NAME"
        + " AND tc.CONSTRAINT_SCHEMA = cc.CONSTRAINT_SCHEMA"
        + " WHERE tc.TABLE_NAME = 'RUNS' AND cc.CHECK_CLAUSE LIKE '%SUPERSEDED%' AND cc.CHECK_CLAUSE NOT LIKE '%KILLED%'");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        old.add(rs.getString(1));
      }
    }
    try (Statement s = c.createStatement()) {
      for (String name : old) {
        s.execute("ALTER TABLE runs DROP CONSTRAINT \"" + name + "\"");
      }
      s.execute("ALTER TABLE runs ADD CONSTRAINT IF NOT EXISTS runs_verdict_known CHECK (verdict IN (" + VERDICTS
          + ", 'KILLED'))");
    }
  }


  private Schema() {}

  /**
   * The schema version of an open database: 0 for an empty database (or one whose version 1 was
   * interrupted before it recorded itself).
   *
   * @throws CoordinationStoreException for a database that holds tables but no {@code schema_version}
   */
  static int versionOf(Connection c, String file) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(
             "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC' ORDER BY TABLE_NAME")) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    }
    if (!tables.contains("SCHEMA_VERSION")) {
      if (!tables.isEmpty()) {
        throw new CoordinationStoreException("cannot open " + file + ": it is an H2 database but not a Vigil one"
            + " (tables " + tables + ", no SCHEMA_VERSION)");
      }
      return 0;
    }
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Refuses a database written by a newer schema, naming both versions. */
  static void requireSupported(int found, String file) {
    if (found > CURRENT_VERSION) {
      throw new CoordinationStoreException("cannot open " + file + ": its schema version " + found
          + " is newer than this build supports (" + CURRENT_VERSION + "); use a newer Vigil");
    }
  }

  /** Applies every migration above the database's version, in order; returns the version reached. */
  static int migrate(Connection c, String file) throws SQLException {
    return migrate(c, file, CURRENT_VERSION);
  }

  /** Applies the migrations above the database's version up to {@code upTo} (tests build older stores with it). */
  static int migrate(Connection c, String file, int upTo) throws SQLException {
    int version = versionOf(c, file);
    requireSupported(version, file);
    for (Migration m : MIGRATIONS) {
      if (m.version() <= version || m.version() > upTo) {
        continue;
      }
      for (Change change : m.changes()) {
        change.apply(c);
      }
      try (PreparedStatement p = c.prepareStatement(
          "INSERT INTO schema_version(version, description, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)")) {
        p.setInt(1, m.version());
        p.setString(2, m.description());
        p.executeUpdate();
      }
      c.commit();
      version = m.version();
    }
    return version;
  }
}
