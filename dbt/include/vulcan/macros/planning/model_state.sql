{#- A model run's state and settings: the one read of the relation's log rows, then the
    validated settings once per definition.

    The validator (validate.sql) is the largest share of the Jinja a run compiles. Its output
    depends only on the node's config as dbt hands it over, the kind, the dbt adapter's type and
    dbt-vulcan's release, so a run that validated records its settings (and its cron parsed,
    which the plan needs on every run) with a key of those inputs (`settings_key`, `settings`,
    `cron`: the first processed row of the run, run_batches.sql); a later run whose key is
    found on a recorded row takes the settings from there and does not validate. Anything else (a changed config, a new release, a log without the row) validates
    again, so a bad config is still refused before anything is written. -#}

{#- {rows: the relation's log rows in replay order (state/log.sql), key: the relation's
     key in the log, parents, by_key: the upstream models it waits for and the log's rows by
     key, its own and theirs (planning/upstream.sql), waits: what it waits for (set by the
     plan), cfg: the settings,
     cron: the schedule's cron parsed (vulcan_cron_parse), settings_key, record: what this run
     records on its first row when it validated ({settings: as YAML text, cron}), else none}. -#}
{% macro vulcan_model_state(node, kind, relation) %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set relation_key = dbt_vulcan.vulcan_relation_key(relation) -%}
  {#- the parents' rows in the same read (planning/upstream.sql: the intervals wait for them) -#}
  {%- set parents = dbt_vulcan.vulcan_upstream_models(node) if dbt_vulcan.vulcan_node_config(node).get('start') is not none else [] -%}
  {%- if dbt_vulcan.vulcan_virtual() -%}
    {#- the virtual layer: the physical table this environment writes, from the same one read
        (environments/resolve.sql) -#}
    {%- set virtual = dbt_vulcan._vulcan_virtual_state(node, parents, relation_key) -%}
    {%- set by_key, relation_key = virtual.by_key, virtual.resolved.key -%}
  {%- else -%}
    {%- set virtual = none -%}
    {%- set by_key = dbt_vulcan.vulcan_log_read([relation_key] + dbt_vulcan.vulcan_upstream_keys(parents), none, none, dbt_vulcan.vulcan_invocation_reads()) -%}
  {%- endif -%}
  {%- set rows = by_key.get(relation_key, []) -%}
  {%- set state = dbt_vulcan.vulcan_recorded_settings(rows, dbt_vulcan.vulcan_settings_key(node, kind)) -%}
  {%- do state.update({'parents': parents, 'by_key': by_key, 'waits': none, 'virtual': virtual}) -%}
  {%- if state.cfg is none -%}
    {%- set cfg = dbt_vulcan.vulcan_settings(node, kind) -%}
    {%- set cron = dbt_vulcan.vulcan_cron_parse(cfg.cron) -%}
    {#- the settings as YAML text, not JSON: a config may hold a date of YAML (an audit's
        argument) that JSON cannot write and YAML reads back as it was; settings YAML cannot
        write are not recorded (the next run validates again) -#}
    {%- set text = toyaml(cfg) -%}
    {%- do state.update({'cfg': cfg, 'cron': cron, 'record': {'settings': text, 'cron': cron} if text else none}) -%}
  {%- endif -%}
  {%- do state.update({'key': relation_key}) -%}
  {%- if virtual is not none and state.cfg.forward_only and virtual.resolved.reuse -%}
    {#- a forward_only model whose changed SQL prod's table has not run: previewed in a table
        of this environment (environments/resolve.sql) -#}
    {%- set fingerprint = dbt_vulcan.vulcan_fingerprint(node.raw_code, state.cfg, dbt_vulcan.vulcan_contract_signature(node)) -%}
    {%- set resolved = dbt_vulcan.vulcan_virtual_resolve(virtual.ctx, node.unique_id, by_key, fingerprint) -%}
    {%- if resolved.own -%}
      {%- do virtual.update({'resolved': resolved}) -%}
      {%- do state.update({'key': resolved.key, 'rows': by_key.get(resolved.key, [])}) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(state) }}
{% endmacro %}

{#- The virtual layer's part of the one read: {ctx, resolved (this model's choice), by_key},
    the parents' rows also under their own relations' keys, where the upstream waits look;
    the rows of the model's own relation (`own_key`) too, which a table built without the
    virtual layer carries over when it is adopted (engine/virtual_adopt.sql). -#}
{% macro _vulcan_virtual_state(node, parents, own_key) %}
  {%- set ctx = dbt_vulcan.vulcan_virtual_context(node, dbt_vulcan.vulcan_run_vars(node.name).execution_time) -%}
  {%- set by_key = dbt_vulcan.vulcan_log_read((ctx['keys'] + [own_key]) | unique | list, none, ctx.prefixes, dbt_vulcan.vulcan_invocation_reads()) -%}
  {%- do dbt_vulcan.vulcan_virtual_versions(ctx, by_key) -%}
  {%- set done = {} -%}
  {%- set deferred = dbt_vulcan.vulcan_virtual_deferred(ctx, node, by_key, done) -%}
  {%- if deferred -%}{%- do ctx.update({'deferred': {'for': [node.unique_id], 'parents': deferred}}) -%}{%- endif -%}
  {%- set resolved = dbt_vulcan.vulcan_virtual_resolve(ctx, node.unique_id, by_key, none, done) -%}
  {#- the upstream waits read the intervals of what the model reads: the table its parent's
      view shows in this environment (of the parent's version, it may be the one beside the
      version's table now: another environment rebuilt it since; or of a version of the same
      lineage, a non-breaking change away), else the parent's table -#}
  {%- for parent in parents if parent.unique_id in ctx.nodes -%}
    {%- set chosen = deferred.get(parent.unique_id) -%}
    {%- if chosen is none -%}
      {%- set theirs = dbt_vulcan.vulcan_virtual_resolve(ctx, parent.unique_id, by_key, none, done) -%}
      {%- set mine = theirs.pointers.get(ctx.env) or {} -%}
      {%- set shown = mine.get('physical') -%}
      {%- set chosen = shown if shown is not none and (shown in theirs.table_keys or mine.lineage == theirs.lineage) else theirs.key -%}
    {%- endif -%}
    {%- do by_key.update({dbt_vulcan.vulcan_node_state_key(parent): by_key.get(chosen, [])}) -%}
  {%- endfor -%}
  {{ return({'ctx': ctx, 'resolved': resolved, 'by_key': by_key}) }}
{% endmacro %}

{#- {rows, cfg, cron, settings_key, record: none} from the newest row that recorded settings of
    `key`, or with cfg none when no row did. -#}
{% macro vulcan_recorded_settings(rows, key) %}
  {%- set state = {'rows': rows, 'cfg': none, 'cron': none, 'settings_key': key, 'record': none} -%}
  {#- newest first; only a row carrying settings of this key is parsed -#}
  {%- for row in rows | reverse if key in row.details and '"settings"' in row.details and state.cfg is none -%}
    {%- set recorded = fromjson(row.details, {}) -%}
    {%- if recorded is mapping and recorded.get('settings_key') == key and recorded.get('settings') is string and recorded.get('cron') is mapping -%}
      {%- set cfg = fromyaml(recorded.settings) -%}
      {%- if cfg is mapping -%}
        {{ log("Model '" ~ cfg.model ~ "': settings as recorded for this definition (not validated again)", info=false) }}
        {%- do state.update({'cfg': cfg, 'cron': recorded.cron}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}

{#- What the settings are made of, hashed: their text as Python writes it (a date of YAML, which
    JSON cannot hold, included; an object without a faithful text writes its address, so it
    never matches another run's). Keys set to none are left out at every depth: the running
    model's node (`model`) omits them where the same node in `graph` (a child's view of its
    parent, planning/upstream.sql) holds them, and both must give the same key. -#}
{% macro vulcan_settings_key(node, kind) %}
  {%- set inputs = [
    kind, adapter.type(), dbt_vulcan.vulcan_release(),
    dbt_vulcan._vulcan_without_none(node.get('config')),
    dbt_vulcan._vulcan_without_none(node.get('unrendered_config')),
    dbt_vulcan._vulcan_without_none(node.get('config_call_dict')),
  ] | string -%}
  {{ return(local_md5(inputs)[:16]) }}
{% endmacro %}

{#- `value` without the mapping keys set to none, at every depth (sequences become lists). -#}
{% macro _vulcan_without_none(value) %}
  {%- if value is mapping -%}
    {%- set out = {} -%}
    {%- for k, v in value.items() if v is not none -%}
      {%- do out.update({k: dbt_vulcan._vulcan_without_none(v)}) -%}
    {%- endfor -%}
    {{ return(out) }}
  {%- elif value is iterable and value is not string -%}
    {%- set out = [] -%}
    {%- for v in value -%}{%- do out.append(dbt_vulcan._vulcan_without_none(v)) -%}{%- endfor -%}
    {{ return(out) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}

{#- dbt-vulcan's release, written by scripts/version.py from dbt/adapters/vulcan/__version__.py. -#}
{% macro vulcan_release() %}{{ return('0.1.0') }}{% endmacro %}
