{#- dbt run-operation vulcan_janitor --args '{ttl: 7 days}'
    The virtual layer's clean-up (environments/): drops the physical tables that no
    environment's view has pointed at for `ttl` (a number of days, or `N days` / `N hours`;
    default 7 days) before the execution time, and their rows of the state log. A table some
    environment's view points at now is never dropped, however old. A table is unused since the
    last time a view moved away from it, or since its last log row if no view ever pointed at
    it (a version a run built and never deployed); a table with no log row at all (a first
    build stopped before anything was recorded, or one running now) is left, and named.
    `dry_run: true` lists what would be dropped and drops nothing. One read of the pointer
    rows, one listing of the physical schema, one read of the listed tables' rows. -#}
{% macro vulcan_janitor(ttl='7 days', dry_run=false, execution_time=none) %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set keep_for = dbt_vulcan._vulcan_janitor_ttl(ttl) -%}
  {%- set now = dbt_vulcan.vulcan_run_vars(none, {'vulcan_execution_time': execution_time}).execution_time -%}
  {%- set cutoff = dbt_vulcan.vulcan_micros(now - keep_for) -%}
  {%- set schema = dbt_vulcan.vulcan_physical_schema() -%}
  {%- if run_query("show schemas like '" ~ schema ~ "'").rows | length == 0 -%}
    {{ print('vulcan_janitor: no physical schema ' ~ schema ~ ': nothing to drop') }}
    {{ return(none) }}
  {%- endif -%}
  {#- what every environment points at now, and when a view last moved away from a table -#}
  {%- set in_use = {} -%}
  {%- set left_at = {} -%}
  {%- for key, rows in dbt_vulcan.vulcan_pointer_rows().items() -%}
    {%- set current = {} -%}
    {%- for row in rows if row.row_type == 'pointer' -%}
      {%- set d = dbt_vulcan.vulcan_log_details(row) -%}
      {%- set before = current.get(d.get('environment')) -%}
      {%- if before and before != d.get('physical') -%}
        {%- do left_at.update({before: [left_at.get(before, 0), row.at] | max}) -%}
      {%- endif -%}
      {%- if d.get('physical') -%}
        {%- do current.update({d.environment: d.physical}) -%}
      {%- elif d.get('environment') in current -%}
        {%- do current.pop(d.environment) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- for env, physical in current.items() -%}{%- do in_use.update({physical: env}) -%}{%- endfor -%}
  {%- endfor -%}
  {#- the version tables in the physical schema (not the stages a run keeps beside them) -#}
  {%- set tables = [] -%}
  {#- (SHOW TABLES lists the session's temporary views too: left out) -#}
  {%- for row in run_query('show tables in ' ~ schema).rows if not row[2] -%}
    {%- set name = row[1] | string | lower -%}
    {%- if modules.re.fullmatch('.+__[0-9a-f]{10}(_b)?(__[a-z0-9_]+)?', name) and '__vulcan_' not in name -%}
      {%- do tables.append(name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for name in tables -%}{%- do keys.append(dbt_vulcan.vulcan_state_key(none, schema, name)) -%}{%- endfor -%}
  {%- set by_key = dbt_vulcan.vulcan_log_read(keys) -%}
  {%- set lines = [] -%}
  {%- set dropped = [] -%}
  {%- for name in tables -%}
    {%- set key = keys[loop.index0] -%}
    {%- set rows = by_key.get(key, []) -%}
    {%- if key in in_use -%}
    {%- elif not rows and key not in left_at -%}
      {%- do lines.append('  kept ' ~ key ~ ': no state rows (a first build stopped before its first record, or running now); drop it by hand if no run builds it') -%}
    {%- else -%}
      {%- set last = [left_at.get(key, 0), (rows | map(attribute='at') | max) if rows else 0] | max -%}
      {%- if last <= cutoff -%}
        {%- do dropped.append(key) -%}
        {%- if not dry_run -%}
          {% do adapter.drop_relation(api.Relation.create(schema=schema, identifier=name, type='table')) %}
          {%- if not dbt_vulcan.vulcan_state_remove_relation(key, rows) -%}
            {%- do lines.append('  ' ~ key ~ ': its state rows are kept (the state table predates its partitioning by relation: run vulcan_compact once)') -%}
          {%- endif -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set verb = 'would drop' if dry_run else 'dropped' -%}
  {{ print('vulcan_janitor: ' ~ verb ~ ' ' ~ dropped | length ~ ' physical table' ~ ('s' if dropped | length != 1 else '') ~ ' unused for ' ~ dbt_vulcan._vulcan_janitor_ttl_text(keep_for) ~ (': ' ~ dropped | join(', ') if dropped else '') ~ '; ' ~ in_use | length ~ ' in use by an environment') }}
  {%- for line in lines -%}{{ print(line) }}{%- endfor -%}
{% endmacro %}

{#- `ttl` as a timedelta: a number of days, or 'N days' / 'N hours'; anything else an error. -#}
{% macro _vulcan_janitor_ttl(ttl) %}
  {%- set text = ttl | string | trim | lower -%}
  {%- set m = modules.re.fullmatch('(\\d+)(?:\\s*(day|days|hour|hours))?', text) if ttl is not boolean else none -%}
  {%- if not m -%}
    {{ exceptions.raise_compiler_error('vulcan_janitor: ttl: ' ~ dbt_vulcan.vulcan_repr(ttl) ~ " is not a number of days, 'N days' or 'N hours'") }}
  {%- endif -%}
  {%- if (m.group(2) or 'days').startswith('hour') -%}{{ return(modules.datetime.timedelta(hours=m.group(1) | int)) }}{%- endif -%}
  {{ return(modules.datetime.timedelta(days=m.group(1) | int)) }}
{% endmacro %}

{% macro _vulcan_janitor_ttl_text(delta) %}
  {%- if delta.seconds and not delta.days -%}{{ return((delta.seconds // 3600) ~ ' hours') }}{%- endif -%}
  {{ return(delta.days ~ ' days' if not delta.seconds else (delta.days * 24 + delta.seconds // 3600) ~ ' hours') }}
{% endmacro %}
