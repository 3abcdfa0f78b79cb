/// The SQL of Message DB's schema as this project writes it: the `messages` table, its indexes
/// and the functions other tools call, with Message DB's names, arguments and behaviour (from
/// its documentation and its 1.3.0 release), plus `replay_shipped`, where `replay ship` keeps
/// the last event it shipped of each log, `replay_keys`, the keys its sealed lines need, and
/// `replay_checkpoints`, the read models' checkpoints.
///
/// Every name is qualified with the schema (`message_store.messages`), so the functions work
/// whatever the caller's `search_path`; Message DB's own install relies on the role's
/// `search_path` instead.
enum MessageStoreSQL {
  /// The schema's name, as the statements below spell it.
  static let schema = "message_store"

  /// The channel `notify_messages` notifies when rows are added to `messages`.
  static let notificationChannel = "message_store_messages"

  /// The query the three readers run, returning rows of the type `message_store.message`.
  private static let selectMessages = """
    SELECT id::varchar, stream_name::varchar, type::varchar, position::bigint,
                  global_position::bigint, data::varchar, metadata::varchar, time::timestamp
                FROM message_store.messages
    """

  /// A reader's SQL condition runs only where the setting `message_store.sql_condition` is on,
  /// as in Message DB (it is spliced into the query).
  private static let requireConditions = """
    IF coalesce(current_setting('message_store.sql_condition', true), 'off') = 'off' THEN
                  RAISE EXCEPTION 'Retrieval with SQL condition is not activated';
                END IF;
    """

  /// The end of both readers' queries: the caller's SQL condition (where the setting allows it),
  /// the order, and the batch size as a limit (none for -1). `reader` qualifies the arguments, as
  /// in the rest of their bodies. The lines after the first are indented for where the bodies
  /// interpolate it (two spaces in): the server describes the functions by their text.
  private static func conditionOrderAndLimit(reader: String, orderBy column: String) -> String {
    """
    IF \(reader).condition IS NOT NULL THEN
        \(requireConditions)
        _command := _command || ' AND (' || \(reader).condition || ')';
      END IF;
      _command := _command || ' ORDER BY \(column) ASC';
      IF \(reader).batch_size != -1 THEN
        _command := _command || ' LIMIT $3';
      END IF;
    """
  }

  /// One object: the key it has in a schema's description (`MessageStoreSchema.describe`) and
  /// the statement that creates it.
  struct Statement {
    var key: String
    var sql: String
  }

  /// The statements in the order they must run: immutable helpers before the index that calls
  /// them, the table before its indexes.
  static let statements: [Statement] = [
    Statement(
      key: "type message",
      sql: """
        CREATE TYPE message_store.message AS (
          id varchar,
          stream_name varchar,
          type varchar,
          position bigint,
          global_position bigint,
          data varchar,
          metadata varchar,
          time timestamp
        )
        """),
    function(
      "category",
      arguments: "stream_name varchar", returns: "varchar", volatility: "IMMUTABLE",
      body: """
        BEGIN
          -- The part before the first '-': 'contact-13' is in category 'contact'.
          RETURN split_part(category.stream_name, '-', 1);
        END;
        """),
    function(
      "id",
      arguments: "stream_name varchar", returns: "varchar", volatility: "IMMUTABLE",
      body: """
        DECLARE
          _separator integer;
        BEGIN
          _separator := strpos(id.stream_name, '-');
          IF _separator = 0 THEN
            RETURN NULL;
          END IF;
          RETURN substring(id.stream_name, _separator + 1);
        END;
        """),
    function(
      "cardinal_id",
      arguments: "stream_name varchar", returns: "varchar", volatility: "IMMUTABLE",
      body: """
        DECLARE
          _id varchar;
        BEGIN
          _id := message_store.id(cardinal_id.stream_name);
          IF _id IS NULL THEN
            RETURN NULL;
          END IF;
          -- A compound id ('account-1+2') groups with its first part.
          RETURN split_part(_id, '+', 1);
        END;
        """),
    function(
      "is_category",
      arguments: "stream_name varchar", returns: "boolean", volatility: "IMMUTABLE",
      body: """
        BEGIN
          RETURN strpos(is_category.stream_name, '-') = 0;
        END;
        """),
    function(
      "hash_64",
      arguments: "value varchar", returns: "bigint", volatility: "IMMUTABLE",
      body: """
        DECLARE
          _hash bigint;
        BEGIN
          -- The first 64 bits of the MD5 digest, as Message DB computes them: consumer groups
          -- of every tool that reads this schema split streams the same way.
          SELECT left('x' || md5(hash_64.value), 17)::bit(64)::bigint INTO _hash;
          RETURN _hash;
        END;
        """),
    function(
      "acquire_lock",
      arguments: "stream_name varchar", returns: "bigint", volatility: "VOLATILE",
      body: """
        DECLARE
          _category_hash bigint;
        BEGIN
          -- One writer a category at a time, until the end of the transaction.
          _category_hash := message_store.hash_64(
            message_store.category(acquire_lock.stream_name));
          PERFORM pg_advisory_xact_lock(_category_hash);
          RETURN _category_hash;
        END;
        """),
    function(
      "message_store_version",
      arguments: "", returns: "varchar", volatility: "VOLATILE",
      body: """
        BEGIN
          RETURN '1.3.0';
        END;
        """),
    Statement(
      key: "table messages",
      sql: """
        CREATE TABLE message_store.messages (
          global_position bigserial NOT NULL,
          position bigint NOT NULL,
          time timestamp without time zone DEFAULT (now() AT TIME ZONE 'utc') NOT NULL,
          stream_name text NOT NULL,
          type text NOT NULL,
          data jsonb,
          metadata jsonb,
          id uuid NOT NULL DEFAULT gen_random_uuid(),
          PRIMARY KEY (global_position)
        )
        """),
    Statement(
      key: "index messages_id",
      sql: "CREATE UNIQUE INDEX messages_id ON message_store.messages (id)"),
    Statement(
      key: "index messages_stream",
      sql: "CREATE UNIQUE INDEX messages_stream ON message_store.messages (stream_name, position)"),
    Statement(
      key: "index messages_category",
      sql: """
        CREATE INDEX messages_category ON message_store.messages (
          message_store.category(stream_name),
          global_position,
          message_store.category(metadata->>'correlationStreamName')
        )
        """),
    // Not Message DB's: wakes followers (`replay log -f`, `state --follow`) when rows are
    // committed, whoever writes them (`ship`, `write_message`, any other writer). Once a
    // statement, not once a row; the server sends it at commit, once a transaction.
    function(
      "notify_messages",
      arguments: "", returns: "trigger", volatility: "VOLATILE",
      body: """
        BEGIN
          PERFORM pg_notify('\(notificationChannel)', '');
          RETURN NULL;
        END;
        """),
    Statement(
      key: "trigger messages_notify",
      sql: """
        CREATE TRIGGER messages_notify AFTER INSERT ON message_store.messages
        FOR EACH STATEMENT EXECUTE FUNCTION message_store.notify_messages()
        """),
    function(
      "stream_version",
      arguments: "stream_name varchar", returns: "bigint", volatility: "VOLATILE",
      body: """
        DECLARE
          _version bigint;
        BEGIN
          -- NULL for a stream with no message.
          SELECT max(position) INTO _version
          FROM message_store.messages
          WHERE messages.stream_name = stream_version.stream_name;
          RETURN _version;
        END;
        """),
    function(
      "write_message",
      arguments: """
        id varchar, stream_name varchar, "type" varchar, data jsonb, metadata jsonb DEFAULT NULL, \
        expected_version bigint DEFAULT NULL
        """,
      returns: "bigint", volatility: "VOLATILE",
      body: """
        DECLARE
          _stream_version bigint;
          _position bigint;
        BEGIN
          PERFORM message_store.acquire_lock(write_message.stream_name);
          _stream_version := coalesce(message_store.stream_version(write_message.stream_name), -1);
          IF write_message.expected_version IS NOT NULL
              AND write_message.expected_version != _stream_version THEN
            RAISE EXCEPTION
              'Wrong expected version: % (Stream: %, Stream Version: %)',
              write_message.expected_version, write_message.stream_name, _stream_version;
          END IF;
          _position := _stream_version + 1;
          INSERT INTO message_store.messages (id, stream_name, position, type, data, metadata)
          VALUES (
            uuid(write_message.id), write_message.stream_name, _position, write_message.type,
            write_message.data, write_message.metadata
          );
          RETURN _position;
        END;
        """),
    function(
      "get_stream_messages",
      arguments: """
        stream_name varchar, "position" bigint DEFAULT 0, batch_size bigint DEFAULT 1000, \
        condition varchar DEFAULT NULL
        """,
      returns: "SETOF message_store.message", volatility: "VOLATILE",
      body: """
        DECLARE
          _command text;
        BEGIN
          IF message_store.is_category(get_stream_messages.stream_name) THEN
            RAISE EXCEPTION 'Must be a stream name: %', get_stream_messages.stream_name;
          END IF;
          position := coalesce(position, 0);
          batch_size := coalesce(batch_size, 1000);
          _command := '\(selectMessages)
            WHERE stream_name = $1 AND position >= $2';
          \(conditionOrderAndLimit(reader: "get_stream_messages", orderBy: "position"))
          RETURN QUERY EXECUTE _command USING
            get_stream_messages.stream_name, get_stream_messages.position,
            get_stream_messages.batch_size;
        END;
        """),
    function(
      "get_category_messages",
      arguments: """
        category varchar, "position" bigint DEFAULT 1, batch_size bigint DEFAULT 1000, \
        correlation varchar DEFAULT NULL, consumer_group_member bigint DEFAULT NULL, \
        consumer_group_size bigint DEFAULT NULL, condition varchar DEFAULT NULL
        """,
      returns: "SETOF message_store.message", volatility: "VOLATILE",
      body: """
        DECLARE
          _member bigint := get_category_messages.consumer_group_member;
          _size bigint := get_category_messages.consumer_group_size;
          _group text;
          _command text;
        BEGIN
          IF NOT message_store.is_category(get_category_messages.category) THEN
            RAISE EXCEPTION 'Must be a category: %', get_category_messages.category;
          END IF;
          position := coalesce(position, 1);
          batch_size := coalesce(batch_size, 1000);
          _command := '\(selectMessages)
            WHERE message_store.category(stream_name) = $1 AND global_position >= $2';
          IF get_category_messages.correlation IS NOT NULL THEN
            IF position('-' IN get_category_messages.correlation) > 0 THEN
              RAISE EXCEPTION 'Correlation must be a category (Correlation: %)',
                get_category_messages.correlation;
            END IF;
            _command := _command
              || ' AND message_store.category(metadata->>''correlationStreamName'') = $4';
          END IF;
          _group := format('(Consumer Group Member: %s, Consumer Group Size: %s)',
            coalesce(_member::text, 'NULL'), coalesce(_size::text, 'NULL'));
          IF (_member IS NULL) != (_size IS NULL) THEN
            RAISE EXCEPTION 'Consumer group member and size must be specified %', _group;
          END IF;
          IF _member IS NOT NULL THEN
            IF _size < 1 THEN
              RAISE EXCEPTION 'Consumer group size must not be less than 1 %', _group;
            END IF;
            IF _member < 0 THEN
              RAISE EXCEPTION 'Consumer group member must not be less than 0 %', _group;
            END IF;
            IF _member >= _size THEN
              RAISE EXCEPTION 'Consumer group member must be less than the group size %', _group;
            END IF;
            -- A stream belongs to one member: its cardinal id's hash modulo the group's size.
            _command := _command || ' AND mod(@message_store.hash_64('
              || 'message_store.cardinal_id(stream_name)), $6) = $5';
          END IF;
          \(conditionOrderAndLimit(reader: "get_category_messages", orderBy: "global_position"))
          RETURN QUERY EXECUTE _command USING
            get_category_messages.category, get_category_messages.position,
            get_category_messages.batch_size, get_category_messages.correlation, _member, _size;
        END;
        """),
    function(
      "get_last_stream_message",
      arguments: "stream_name varchar, \"type\" varchar DEFAULT NULL",
      returns: "SETOF message_store.message", volatility: "VOLATILE",
      body: """
        DECLARE
          _command text;
        BEGIN
          _command := '\(selectMessages)
            WHERE stream_name = $1';
          IF get_last_stream_message.type IS NOT NULL THEN
            _command := _command || ' AND type = $2';
          END IF;
          _command := _command || ' ORDER BY position DESC LIMIT 1';
          RETURN QUERY EXECUTE _command USING
            get_last_stream_message.stream_name, get_last_stream_message.type;
        END;
        """),
    Statement(
      key: "table replay_shipped",
      sql: """
        CREATE TABLE message_store.replay_shipped (
          log_id uuid NOT NULL PRIMARY KEY,
          seq bigint NOT NULL,
          event_id uuid NOT NULL,
          log_path text NOT NULL,
          shipped_at timestamp with time zone NOT NULL DEFAULT now()
        )
        """),
    // The contacts' keys the shipped lines were sealed with (the key store of a log read from
    // the database): `key` is NULL once the contact was erased, so that a line sealed with
    // it reads as erased rather than as a key missing from another log's store.
    Statement(
      key: "table replay_keys",
      sql: """
        CREATE TABLE message_store.replay_keys (
          key_id text NOT NULL PRIMARY KEY,
          contact text NOT NULL,
          key bytea
        )
        """),
    // The read models' checkpoints (`MessageStoreCheckpoints`): the models after the event
    // at `seq`, bound to the SHA-256 of that event's line.
    Statement(
      key: "table replay_checkpoints",
      sql: """
        CREATE TABLE message_store.replay_checkpoints (
          seq bigint NOT NULL PRIMARY KEY,
          line_sha256 text NOT NULL,
          models bytea NOT NULL
        )
        """),
  ]

  private static func function(
    _ name: String, arguments: String, returns: String, volatility: String, body: String
  ) -> Statement {
    Statement(
      key: "function \(name)",
      sql: """
        CREATE FUNCTION message_store.\(name)(\(arguments))
        RETURNS \(returns)
        AS $$
        \(body)
        $$ LANGUAGE plpgsql
        \(volatility)
        """)
  }
}
