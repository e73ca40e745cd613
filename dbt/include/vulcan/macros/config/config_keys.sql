{#- Every model config key dbt-vulcan reads, declared once. The validator, the adapter's
    config class and README's option tables are derived from this table (the Python side
    reads it with dbt/adapters/vulcan/config_keys.py; `scripts/readme_config_tables.py`
    writes the README tables, and a unit test keeps them in step).

    Fields of a key: `name`; `aliases` (other names for it); `kinds` ('all' or a list);
    `required_by` (kinds that need it); `dbt` (a key of dbt or dbt-spark that dbt-vulcan honours:
    never an error on a kind that does not use it); `section` (the README table it is in: 'every'
    or a kind, 'scd_type_2' for both SCD kinds); `type`, `default`, `meaning` (README text, with
    `default_by_kind` where a kind differs); `modes` ('both': the adapter and the package, or
    'adapter': what needs Python).

    What the validator (macros/config/validate.sql, and config.py, its Python oracle) needs:
    `check`, how a value is checked and normalized: 'bool' (true/false or their strings),
    'int' (an integer or its string, >= `min`), 'choice' (one of `allowed`, any case;
    `allowed_by_kind` where a kind differs), 'columns' (a name or a list of names), 'column'
    (one name), 'time' / 'end_time' (a date, timestamp or epoch; a date-only end includes its
    day), 'cron' / 'interval_unit' / 'week_start' (the schedule, checked together),
    'time_column' (a name, [name, format] or {column:, format:}), 'when_matched', 'predicate'
    (a non-empty SQL text), 'names' (a model name or a list of names, lower case), 'audits' (a list), 'tags' (a
    mapping of names to values, the values as text), 'path' (a non-empty text), 'scd_columns' (names or '*'); a key without
    `check` is not read by the validator. `value`: the setting's normalized default (with
    `value_by_kind`, and `value_by_adapter` where the dbt adapter's own default differs: a
    model's and the state table's format on `type: databricks` is Delta, as dbt-databricks'
    own); a key with `value` is a setting of vulcan_settings(). `checked_on`: the
    kinds the value is checked on when they differ from `kinds` (a key set on another kind is
    an error either way). `dbt_node_value`: the value dbt-core gives every node whether the user
    set it or not (microbatch's `lookback: 1`): read only when the user set it.

    The table is JSON data inside the macro (kinds by their full names, `all` for every kind):
    Jinja compiles it as one piece of text, so a run that reads a key compiles no 16 KB of
    Jinja literals; `fromjson` reads it. A literal `{{` in a text is written
    `{\u007b`. -#}

{#- The dbt-vulcan kinds (materializations), in one place. -#}
{% macro vulcan_kinds() %}
  {{ return([
    'incremental_by_time_range', 'incremental_by_unique_key', 'incremental_by_partition',
    'incremental_unmanaged', 'scd_type_2_by_time', 'scd_type_2_by_column', 'tracked',
  ]) }}
{% endmacro %}

{#- dbt's own keys that are not in the table but are never refused, and that a typo must not
    be mistaken for (the table's `dbt: true` keys are the others). -#}
{% macro vulcan_dbt_other_keys() %}
  {{ return(['incremental_strategy', 'full_refresh']) }}
{% endmacro %}

{% macro vulcan_config_keys() %}
  {%- set declared -%}
[
  {"name": "file_format", "kinds": "all", "dbt": true, "section": "every",
   "check": "choice", "allowed": ["parquet", "delta", "iceberg"], "value": "parquet", "value_by_adapter": {"databricks": "delta"},
   "type": "`parquet` \\| `delta` \\| `iceberg`", "default": "`parquet` (`delta` on `type: databricks`)",
   "meaning": "the table format; chooses the write strategy"},
  {"name": "partition_by", "aliases": ["partitioned_by"], "kinds": "all", "dbt": true, "section": "every",
   "check": "partitions",
   "type": "column or list", "default": "none",
   "meaning": "partition columns (dbt's name; `partitioned_by` is Vulcan's); required by `incremental_by_partition`, whose key it is"},
  {"name": "liquid_clustered_by", "kinds": "all", "dbt": true, "section": "every",
   "check": "columns", "value": [],
   "type": "column or list", "default": "none",
   "meaning": "Delta liquid clustering, as dbt-databricks: the table is created `CLUSTER BY (...)` and stays clustered through rebuilds; a change is applied with `ALTER TABLE ... CLUSTER BY` on the next run (no rebuild); `OPTIMIZE` after each run that wrote. Delta only; not with `partition_by` (Delta clusters or partitions a table, not both: a time range table is then not partitioned by its time column), so not on `incremental_by_partition`"},
  {"name": "auto_liquid_cluster", "kinds": "all", "dbt": true, "section": "every",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "`CLUSTER BY AUTO` (Databricks chooses the columns; Unity Catalog managed tables: Delta Lake open source refuses it), kept and changed as `liquid_clustered_by`; not with it"},
  {"name": "zorder", "kinds": "all", "dbt": true, "section": "every",
   "check": "columns", "value": [],
   "type": "column or list", "default": "none",
   "meaning": "`OPTIMIZE ... ZORDER BY (...)` after each run that wrote, as dbt-databricks. Delta only; not with liquid clustering (Delta refuses both)"},
  {"name": "skip_optimize", "kinds": "all", "dbt": true, "section": "every",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "no `OPTIMIZE` after a run (the vars `databricks_skip_optimize` / `DATABRICKS_SKIP_OPTIMIZE: true` skip it for every model, as in dbt-databricks)"},
  {"name": "location_root", "kinds": "all", "dbt": true, "section": "every",
   "check": "path", "value": null,
   "type": "path", "default": "none",
   "meaning": "as dbt-spark and dbt-databricks: the table is external, in `<location_root>/<alias>`, and stays there through rebuilds and schema changes (a parquet rebuild replaces the folder's files). On parquet only for a table without partitions: with `partition_by`, `incremental_by_partition` or a time range table partitioned by its time column it is refused (Spark keeps the files of an external table's dropped partitions, and a rebuild finds them again): use Delta or Iceberg, or `partition_by_time_column: false`"},
  {"name": "databricks_tags", "kinds": "all", "dbt": true, "section": "every",
   "check": "tags", "value": {},
   "type": "mapping", "default": "none",
   "meaning": "Unity Catalog tags of the table, as dbt-databricks: `ALTER TABLE ... SET TAGS` when the table is created or rebuilt, and for a tag added or changed on a later run (set only: a tag removed from the config stays on the table, as in dbt-databricks); a column's `databricks_tags` in a properties file tag the column the same way. Unity Catalog only: refused before anything runs on the Hive metastore (`hive_metastore`, as dbt-databricks refuses it) and on `type: spark` / `type: vulcan`"},
  {"name": "forward_only", "kinds": "all", "section": "every",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "history is never rebuilt: `--full-refresh` runs the model incrementally and one line says so (an error if its own config sets `full_refresh: true`); `vulcan_restate` of a kind it would rebuild (all but `incremental_by_time_range`) is refused when `select` names the model, skipped (and named) when only a graph operator reaches it; a whole-history restatement already pending does not rebuild it (the run says so)"},
  {"name": "disable_restatement", "kinds": "all", "section": "every",
   "check": "bool", "value": false, "value_by_kind": {"scd_type_2_by_time": true, "scd_type_2_by_column": true},
   "type": "bool", "default": "false (true for SCD type 2)", "default_by_kind": {"scd_type_2_by_time": "true", "scd_type_2_by_column": "true"},
   "meaning": "`vulcan_restate` is refused when `select` names the model, skipped (and named) when only a graph operator reaches it; `--full-refresh` runs the model incrementally and one line says so (an error if its own config sets `full_refresh: true`)"},
  {"name": "on_additive_change", "kinds": "all", "section": "every",
   "check": "choice", "allowed": ["allow", "warn", "error", "ignore"], "value": "allow",
   "type": "`allow` \\| `warn` \\| `error` \\| `ignore`", "default": "`allow`",
   "meaning": "new columns in the query: add them / add and warn / fail untouched / keep the table's columns"},
  {"name": "on_destructive_change", "kinds": "all", "section": "every",
   "check": "choice", "allowed": ["allow", "warn", "error", "ignore"], "value": "error",
   "type": "`allow` \\| `warn` \\| `error` \\| `ignore`", "default": "`error`",
   "meaning": "dropped or retyped columns: rewrite the table to the new schema / same with a warning / fail untouched / keep the table's schema (dropped columns get NULL)"},
  {"name": "grains", "kinds": "all", "section": "every",
   "check": "columns", "value": [],
   "type": "column or list", "default": "none",
   "meaning": "the columns that identify a row (documentation; implies a uniqueness audit)"},
  {"name": "audits", "aliases": ["assertions"], "kinds": "all", "section": "every",
   "check": "audits", "value": [],
   "type": "list", "default": "none",
   "meaning": "data audits checked before each batch is written (see [Audits](#audits))"},
  {"name": "grains_audit", "kinds": "all", "section": "every",
   "type": "bool", "default": "true",
   "meaning": "`grains` implies a blocking uniqueness audit on the grain; false turns it off"},

  {"name": "time_column", "kinds": ["incremental_by_time_range", "tracked"], "required_by": ["incremental_by_time_range"], "section": "incremental_by_time_range",
   "check": "time_column", "value": null,
   "type": "string, `[column, format]` or `{column:, format:}`", "default": "required (time range); none (tracked)",
   "meaning": "the output column holding each row's time; a format (`'%Y%m%d'` or `'yyyyMMdd'`) for string columns. Tracked: limits an incremental run to the groups of its window (see [tracked](#tracked))"},
  {"name": "time_data_type", "kinds": ["incremental_by_time_range", "scd_type_2_by_time", "scd_type_2_by_column", "tracked"], "section": "incremental_by_time_range",
   "check": "choice", "allowed": ["date", "timestamp", "timestamp_ntz", "string", "int", "bigint", "epoch", "epoch_millis"], "allowed_by_kind": {"scd_type_2_by_time": ["timestamp", "timestamp_ntz", "date"], "scd_type_2_by_column": ["timestamp", "timestamp_ntz", "date"]}, "value": null, "value_by_kind": {"scd_type_2_by_time": "timestamp", "scd_type_2_by_column": "timestamp"},
   "type": "`date` \\| `timestamp` \\| `timestamp_ntz` \\| `string` \\| `int` \\| `bigint` \\| `epoch` \\| `epoch_millis`", "default": "detected",
   "meaning": "the time column's type for the output filter; detected from the query when it is a date, timestamp or string; an int/bigint column needs it (`epoch`, `epoch_millis`, `int`, `bigint`: epoch seconds or milliseconds). SCD type 2: the type of `valid_from` / `valid_to` (`timestamp`, `timestamp_ntz`, `date`; default `timestamp`)"},
  {"name": "start", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "required_by": ["incremental_by_time_range"], "section": "incremental_by_time_range",
   "check": "time", "value": null,
   "type": "date or timestamp", "default": "required",
   "meaning": "first interval (floored to the interval unit); optional on unique key and SCD type 2 (interval tracking)"},
  {"name": "end", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "end_time", "value": null,
   "type": "date or timestamp", "default": "none",
   "meaning": "last interval; a date is inclusive (the whole day)"},
  {"name": "cron", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column", "tracked"], "section": "incremental_by_time_range",
   "check": "cron", "value": "0 0 * * *",
   "type": "`@hourly` \\| `@daily` \\| `@weekly` \\| `@monthly` \\| `@yearly` \\| 5-field cron", "default": "`@daily`",
   "meaning": "when intervals become due; also gives the interval unit"},
  {"name": "interval_unit", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column", "tracked"], "section": "incremental_by_time_range",
   "check": "interval_unit", "value": "day",
   "type": "`five_minute` \\| `quarter_hour` \\| `half_hour` \\| `hour` \\| `day` \\| `week` \\| `month` \\| `quarter` \\| `year`", "default": "from `cron`",
   "meaning": "the size of one interval; coarser than the cron needs `allow_partials`"},
  {"name": "week_start", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column", "tracked"], "section": "incremental_by_time_range",
   "check": "week_start", "value": 0,
   "type": "`monday`..`sunday` or 0..6", "default": "the weekly cron's day, else monday",
   "meaning": "first day of a week interval"},
  {"name": "lookback", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "tracked"], "section": "incremental_by_time_range",
   "check": "int", "min": 0, "value": 0, "dbt_node_value": 1,
   "type": "int ≥ 0", "default": "0",
   "meaning": "also re-run the N intervals before *each* missing interval (late data), as SQLMesh does. Tracked with `time_column`: the window reaches N interval units back"},
  {"name": "batch_size", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "int", "min": 1, "value": null,
   "type": "int ≥ 1", "default": "none",
   "meaning": "at most N intervals per batch; none: each contiguous range to run is ONE batch"},
  {"name": "wait_for_upstream", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "bool", "value": true,
   "type": "bool", "default": "true",
   "meaning": "an interval runs only when every dbt-vulcan model with intervals that the model reads (directly, or through views, tables and ephemeral models) has processed all of its own intervals the interval overlaps; the others wait for a later run, neither written nor recorded (see [Upstream-aware planning](#upstream-aware-planning)). false: plan from the model's own log and cron alone"},
  {"name": "ignore_upstream", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "names", "value": [],
   "type": "model name or list", "default": "none",
   "meaning": "upstream dbt-vulcan models not waited for (their names); each must be one the model waits for"},
  {"name": "ready_when", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "predicate", "value": null,
   "type": "SQL expression or query", "default": "none",
   "meaning": "a signal: SQL run once per run (only when intervals are due) with the time tokens of the due range (`@start_ts`, `@end_ts`, `@execution_ts`, ...); true runs them, false or NULL holds them all back, a date or timestamp holds back the intervals ending after it (e.g. `select max(loaded_at) from {\u007b source('raw', 'events') }}`). See [Upstream-aware planning](#upstream-aware-planning)"},
  {"name": "ready_intervals", "kinds": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_time_range",
   "check": "predicate", "value": null,
   "type": "SQL query", "default": "none",
   "meaning": "a per-interval signal: a query run once per run (only when intervals are due) with the time tokens of the due range, returning one column of dates or timestamps; an interval runs only when one of them falls inside it, the others wait for a later run (e.g. the days a source has rows for: `select distinct to_date(loaded_at) from {\u007b source('raw', 'events') }} where loaded_at >= @start_ts`). See [Upstream-aware planning](#upstream-aware-planning)"},
  {"name": "allow_partials", "kinds": ["incremental_by_time_range", "incremental_by_unique_key"], "section": "incremental_by_time_range",
   "check": "bool", "value": false, "checked_on": ["incremental_by_time_range", "incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"],
   "type": "bool", "default": "false",
   "meaning": "also process the current, incomplete interval"},
  {"name": "partition_by_time_column", "kinds": ["incremental_by_time_range"], "section": "incremental_by_time_range",
   "check": "bool", "value": true,
   "type": "bool", "default": "true",
   "meaning": "partition the table by `time_column` (plus `partition_by`)"},
  {"name": "safety_overrides", "kinds": ["incremental_by_time_range"], "section": "incremental_by_time_range", "modes": "both",
   "check": "columns", "value": [], "checked_on": "all",
   "type": "list", "default": "none",
   "meaning": "patterns the [safety analysis](#safety-analysis) should allow"},

  {"name": "unique_key", "kinds": ["incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "required_by": ["incremental_by_unique_key", "scd_type_2_by_time", "scd_type_2_by_column"], "section": "incremental_by_unique_key", "modes": "both",
   "check": "columns", "value": [],
   "type": "column, expression or list", "default": "required",
   "meaning": "the key; expressions (`lower(email)`) and composite keys allowed"},
  {"name": "when_matched", "kinds": ["incremental_by_unique_key"], "section": "incremental_by_unique_key", "modes": "both",
   "check": "when_matched", "value": [],
   "type": "string or list of `WHEN MATCHED [AND cond] THEN UPDATE SET … \\| DELETE`", "default": "update every column",
   "meaning": "what a match does; `source.` / `target.` prefixes name the batch row and the stored row; the first clause whose condition holds wins, none: the row is unchanged"},
  {"name": "merge_filter", "kinds": ["incremental_by_unique_key"], "section": "incremental_by_unique_key", "modes": "both",
   "check": "predicate", "value": null,
   "type": "SQL predicate", "default": "none",
   "meaning": "ANDed to the match condition (e.g. `target.ds > date_sub(current_date(), 7)` to prune the table); a pair failing it does not match, so the batch row is inserted as a second row with that key"},
  {"name": "skip_unchanged_rows", "kinds": ["incremental_by_unique_key"], "section": "incremental_by_unique_key", "modes": "both",
   "check": "bool", "value": true,
   "type": "bool", "default": "true",
   "meaning": "without `when_matched`: a batch row equal to the table's row (every column, `<=>`) is left out of the MERGE, so unchanged rows are not rewritten and a batch with no change commits nothing (Iceberg: an empty snapshot), at the cost of one more read of the table in the MERGE's statement; on parquet a batch with no change does not overwrite the table (one query on the stage finds a change); `false` for a query that returns only changed rows (every matched row is then updated)"},
  {"name": "incremental_predicates", "kinds": ["incremental_by_unique_key"], "dbt": true, "section": "incremental_by_unique_key", "modes": "both",
   "type": "list of SQL", "default": "none",
   "meaning": "dbt's key: extra conditions ANDed to the match (Delta / Iceberg)"},

  {"name": "updated_at_name", "kinds": ["scd_type_2_by_time", "scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "column", "value": null, "value_by_kind": {"scd_type_2_by_time": "updated_at"},
   "type": "column", "default": "`updated_at` (by time); none (by column)", "default_by_kind": {"scd_type_2_by_time": "`updated_at`", "scd_type_2_by_column": "none"},
   "meaning": "by time: the change timestamp; by column: the change time of a historical source"},
  {"name": "columns", "kinds": ["scd_type_2_by_column"], "required_by": ["scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "scd_columns", "value": null,
   "type": "list or `'*'`", "default": "required (by column)",
   "meaning": "the watched columns (`'*'`: every non-key column)"},
  {"name": "valid_from_name", "kinds": ["scd_type_2_by_time", "scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "column", "value": "valid_from",
   "type": "column name", "default": "`valid_from`",
   "meaning": "the name of the column where a version starts"},
  {"name": "valid_to_name", "kinds": ["scd_type_2_by_time", "scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "column", "value": "valid_to",
   "type": "column name", "default": "`valid_to`",
   "meaning": "the name of the column where a version ends (NULL: current)"},
  {"name": "invalidate_hard_deletes", "kinds": ["scd_type_2_by_time", "scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "close the current version of a key that left the query"},
  {"name": "updated_at_as_valid_from", "kinds": ["scd_type_2_by_time"], "section": "scd_type_2", "modes": "both",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "by time: the first load starts at `updated_at`, not 1970"},
  {"name": "execution_time_as_valid_from", "kinds": ["scd_type_2_by_column"], "section": "scd_type_2", "modes": "both",
   "check": "bool", "value": false,
   "type": "bool", "default": "false",
   "meaning": "by column: the first load starts at the execution time, not 1970"},

  {"name": "group_key", "kinds": ["tracked"], "required_by": ["tracked"], "section": "tracked",
   "check": "columns", "value": [],
   "type": "column or list", "default": "required",
   "meaning": "the columns naming a group (one entity's rows); composite allowed; a group is replaced, inserted or deleted as a whole"},
  {"name": "content_hash_column", "kinds": ["tracked"], "section": "tracked",
   "check": "column", "value": "_content_hash",
   "type": "column name", "default": "`_content_hash`",
   "meaning": "the table column holding each group's content hash (every column but the key; order-independent, NULL-safe)"}
]
  {%- endset -%}
  {{ return(fromjson(declared)) }}
{% endmacro %}
