{#- Which physical table a model run of the virtual layer writes and reads in this environment,
    decided from the run's one read of the state log.

    The read holds, for the model and every dbt-vulcan model above it: its pointer rows (which
    physical table each environment's view points at), the rows of its version's shared tables
    and, in a non-prod environment, of its environment-only tables (each a table and the one
    beside it, where a rebuild goes: vulcan_current_table). The choice, per model:
    - prod: the version's shared table (built, or completed, by this run);
    - another environment whose version prod's view points at: that table, read only: the run
      writes nothing into it (`reuse`), its view points there;
    - another environment, a version prod does not use: the shared table, built or completed by
      this run, unless a partial history could not be completed later: with a dev window
      (`vulcan_dev_start`) a model with `start` of a kind other than a time range (unique key,
      SCD type 2), or a model reading itself, builds a table of this environment only, never
      used by prod, and so does every model that reads such a table; an unmanaged model, whose
      table is its own run history, always does;
    - a `forward_only` model keeps its version; another environment whose changed SQL prod's
      table has not run yet previews it in a table of its own.
    tests/oracle/environments.py (resolve, current_table) is the Python reference. -#}

{#- {env, prod, is_prod, execution_time, window: the dev window's start or none, nodes: {unique_id: {node,
     pointer_key, parents: [unique_id]}} for the model and its dbt-vulcan ancestors, keys: their
     pointer keys, prefixes: the beginning every key of their physical tables has}: what the
     run reads of the log in one query; vulcan_virtual_versions then adds each node's version
     (a version depends on the pointer rows: environments/version.sql). -#}
{% macro vulcan_virtual_context(node, execution_time) %}
  {%- set env, prod = dbt_vulcan.vulcan_environment(), dbt_vulcan.vulcan_prod_environment() -%}
  {%- set ctx = {'env': env, 'prod': prod, 'is_prod': env == prod, 'nodes': {}, 'keys': [], 'prefixes': []} -%}
  {%- do ctx.update({'window': dbt_vulcan.vulcan_dev_start(execution_time), 'execution_time': execution_time}) -%}
  {%- set todo = [node] -%}
  {%- for current in todo if current.unique_id not in ctx.nodes -%}
    {%- set info = {'node': current, 'pointer_key': dbt_vulcan.vulcan_pointer_key(current), 'parents': []} -%}
    {%- do ctx.nodes.update({current.unique_id: info}) -%}
    {%- do ctx['keys'].append(info.pointer_key) -%}
    {%- do ctx.prefixes.append(info.pointer_key ~ '__') -%}
    {%- for parent in dbt_vulcan.vulcan_virtual_parents(current) -%}
      {%- do info.parents.append(parent.unique_id) -%}
      {%- do todo.append(parent) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(ctx) }}
{% endmacro %}

{#- Adds to each node of `ctx` (vulcan_virtual_context), from the rows of the run's read
    (`by_key`): version, lineage (environments/version.sql: `record`, what its pointer rows
    record), shared and own (each the pair of tables, vulcan_physical_relation). -#}
{% macro vulcan_virtual_versions(ctx, by_key) %}
  {%- set memo = {} -%}
  {%- for id, info in ctx.nodes.items() -%}
    {%- set version = dbt_vulcan.vulcan_node_version(info.node, memo, by_key) -%}
    {%- do dbt_vulcan.vulcan_node_lineage(info.node, memo, by_key) -%}
    {%- set record = memo['~lineage:' ~ id] -%}
    {%- do info.update({
      'version': version, 'lineage': record.lineage, 'record': record,
      'shared': [dbt_vulcan.vulcan_physical_relation(info.node, version), dbt_vulcan.vulcan_physical_relation(info.node, version, aside=true)],
      'own': [dbt_vulcan.vulcan_physical_relation(info.node, version, ctx.env), dbt_vulcan.vulcan_physical_relation(info.node, version, ctx.env, true)],
    }) -%}
  {%- endfor -%}
{% endmacro %}

{#- The nearest dbt-vulcan models a node reads (through dbt's own models, which the walk
    passes), as graph nodes. -#}
{% macro vulcan_virtual_parents(node) %}
  {{ return(dbt_vulcan.vulcan_nearest_models(node).values() | sort(attribute='unique_id') | list) }}
{% endmacro %}

{#- {environment: {physical, version, at, identity, own, view, model_id, lineage, shape, parents,
    select}}: what each environment's view points at, from a model's pointer rows (in replay
    order: the latest row of an environment wins); lineage, shape, parents and select as the row
    recorded them (environments/version.sql; a row written before they were recorded: the
    version's lineage is the version, the others none). -#}
{% macro vulcan_pointers(rows) %}
  {%- set out = {} -%}
  {%- for row in rows if row.row_type == 'pointer' -%}
    {%- set d = dbt_vulcan.vulcan_log_details(row) -%}
    {%- if d.get('environment') -%}
      {%- if d.get('physical') -%}
        {%- do out.update({d.environment: {'physical': d.physical, 'version': row.fingerprint, 'at': row.at, 'identity': d.get('identity'), 'own': d.get('own', false), 'view': d.get('view'), 'model_id': row.model_id, 'lineage': d.get('lineage') or row.fingerprint, 'shape': d.get('shape'), 'parents': d.get('parents'), 'select': d.get('select')}}) -%}
      {%- elif d.environment in out -%}
        {%- do out.pop(d.environment) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The choice for one model (and, recursively, its dbt-vulcan ancestors; `done` keeps each
    one's): {relation, key, version, own (an environment-only table), reuse (prod's table: read
    only), pointers, pointer (this environment's current physical key or none)}. `fingerprint`:
    the running model's, for a forward_only preview (none for its ancestors). -#}
{% macro vulcan_virtual_resolve(ctx, unique_id, by_key, fingerprint=none, done=none) %}
  {%- set done = done if done is not none else {} -%}
  {%- if unique_id in done -%}{{ return(done[unique_id]) }}{%- endif -%}
  {%- set info = ctx.nodes[unique_id] -%}
  {%- set pointers = dbt_vulcan.vulcan_pointers(by_key.get(info.pointer_key, [])) -%}
  {%- set shared_keys = [dbt_vulcan.vulcan_relation_key(info.shared[0]), dbt_vulcan.vulcan_relation_key(info.shared[1])] -%}
  {%- set prod_key = (pointers.get(ctx.prod) or {}).get('physical') -%}
  {%- set prod_uses = prod_key in shared_keys -%}
  {%- set own = false -%}
  {%- if not ctx.is_prod -%}
    {%- set config = dbt_vulcan.vulcan_node_config(info.node) -%}
    {%- if prod_uses -%}
      {#- a forward_only change previewed: prod's table has not run this SQL -#}
      {%- if fingerprint is not none and config.get('forward_only') -%}
        {%- set latest = dbt_vulcan.vulcan_log_summary(by_key.get(prod_key, [])).latest -%}
        {%- set own = latest is not none and latest.fingerprint != fingerprint -%}
      {%- endif -%}
    {%- elif unique_id in (ctx.get('deferred') or {}).get('for', []) -%}
      {#- dbt's --defer read another version of a parent (vulcan_virtual_deferred) -#}
      {%- set own = true -%}
    {%- elif config.get('materialized') == 'incremental_unmanaged' -%}
      {#- an unmanaged table is its own run history: another environment's runs never join prod's -#}
      {%- set own = true -%}
    {%- elif ctx.window is not none and config.get('start') is not none and (config.get('materialized') != 'incremental_by_time_range' or dbt_vulcan.vulcan_reads_itself(info.node)) -%}
      {%- set own = true -%}
    {%- else -%}
      {%- set st = {'own': false} -%}
      {%- for parent in info.parents if not st.own -%}
        {%- do st.update({'own': dbt_vulcan.vulcan_virtual_resolve(ctx, parent, by_key, none, done).own}) -%}
      {%- endfor -%}
      {%- set own = st.own -%}
    {%- endif -%}
  {%- endif -%}
  {%- set reuse = prod_uses and not own and not ctx.is_prod -%}
  {%- set pair = info.own if own else info.shared -%}
  {%- set keys = [dbt_vulcan.vulcan_relation_key(pair[0]), dbt_vulcan.vulcan_relation_key(pair[1])] if own else shared_keys -%}
  {%- set i = dbt_vulcan.vulcan_current_table(keys, prod_key if reuse else none, by_key) -%}
  {%- set resolved = {
    'relation': pair[i], 'key': keys[i], 'aside': pair[1 - i], 'aside_key': keys[1 - i], 'table_keys': keys,
    'version': info.version, 'lineage': info.lineage, 'record': info.record, 'own': own, 'reuse': reuse, 'pointers': pointers,
    'pointer': (pointers.get(ctx.env) or {}).get('physical'), 'env': ctx.env,
    'pointer_key': info.pointer_key,
  } -%}
  {%- do done.update({unique_id: resolved}) -%}
  {{ return(resolved) }}
{% endmacro %}

{#- Which of a version's two tables (`keys`: its table and the one beside it,
    vulcan_physical_relation) is its table now, as an index: the one prod's view shows to a run
    that only reads it (`shown`), else the one whose log has the newest row. A rebuild of a table
    some view shows is written beside it (environments/rebuild.sql), so the newest log is the
    latest rebuild's: complete, and shown once its run swapped the views, or stopped half-way,
    and finished by the next run before any view is swapped; the other table stays as it was
    until the janitor drops it. -#}
{% macro vulcan_current_table(keys, shown, by_key) %}
  {%- if shown is not none -%}{{ return(keys.index(shown)) }}{%- endif -%}
  {%- set newest = [] -%}
  {%- for key in keys -%}
    {%- do newest.append(by_key.get(key, []) | map(attribute='at') | max if by_key.get(key) else 0) -%}
  {%- endfor -%}
  {{ return(1 if newest[1] > newest[0] else 0) }}
{% endmacro %}

{#- Whether a model's SQL reads its own table (`{{ this }}`). -#}
{% macro vulcan_reads_itself(node) %}
  {{ return(modules.re.search('\\{\\{-?\\s*this\\s*-?\\}\\}', node.raw_code or '') is not none) }}
{% endmacro %}

{#- The parents the running model reads in another version than its own code's: through dbt's
    `--defer` (the relation `ref()` gives is another environment's view) or through this
    environment's own view, which still shows the version of the parent's last run here (its
    code changed since and it is not selected; a version whose change from the code's is
    non-breaking, of the same lineage, is read as the code's): {unique_id: the log key of what
    the view shows}. The model's rows would come from tables outside its version's lineage: they go to a
    table of this environment only (never reused by prod), and its upstream waits read the
    intervals of what it reads (one more read of the log, only then). Prod refuses: its
    versions are built from their own lineage only. A parent with no view in this environment
    yet (never run here) is read as dbt reads it. -#}
{% macro vulcan_virtual_deferred(ctx, node, by_key, done) %}
  {%- set out = {} -%}
  {%- set deferring = (invocation_args_dict or {}).get('defer') -%}
  {%- set through = {'defer': false} -%}
  {%- for id in ((node.get('depends_on') or {}).get('nodes') or []) if id in ctx.nodes and id != node.unique_id -%}
    {%- set parent = ctx.nodes[id].node -%}
    {%- set pointers = dbt_vulcan.vulcan_pointers(by_key.get(ctx.nodes[id].pointer_key, [])) -%}
    {%- set here = dbt_vulcan.vulcan_state_key(parent.database, parent.schema, parent.alias) -%}
    {%- set there = here -%}
    {%- if deferring -%}
      {%- set read = ref(parent.package_name, parent.name, v=parent.version) if parent.get('version') else ref(parent.package_name, parent.name) -%}
      {%- set there = dbt_vulcan.vulcan_relation_key(read) -%}
    {%- endif -%}
    {%- if there != here -%}
      {%- set shown = pointers.values() | selectattr('view', 'equalto', there) | map(attribute='physical') | list -%}
      {%- set key = shown[0] if shown else there -%}
    {%- else -%}
      {%- set key = (pointers.get(ctx.env) or {}).get('physical') -%}
    {%- endif -%}
    {#- a version of the same lineage (its change from the parent's code was non-breaking) gives
        the same rows to what the model reads -#}
    {%- set lineage = pointers.values() | selectattr('physical', 'equalto', key) | map(attribute='lineage') | list -%}
    {%- if key is not none and key not in dbt_vulcan.vulcan_virtual_resolve(ctx, id, by_key, none, done)['table_keys'] and lineage[:1] != [ctx.nodes[id].lineage] -%}
      {%- do out.update({id: key}) -%}
      {%- if there != here -%}{%- do through.update({'defer': true}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if out and ctx.is_prod and through.defer -%}
    {{ exceptions.raise_compiler_error("Model '" ~ node.name ~ "': with --defer, prod (target '" ~ ctx.env ~ "') would read " ~ (out.values() | join(', ')) ~ ", another environment's version of its parents, and build its own version from it. Nothing was written. Run prod without --defer, or with the parents selected.") }}
  {%- elif out and ctx.is_prod -%}
    {{ exceptions.raise_compiler_error("Model '" ~ node.name ~ "': prod's views of its parents show " ~ (out.values() | join(', ')) ~ ", not the versions of their code: they changed and have not run in prod (target '" ~ ctx.env ~ "') since, and a version built from old parents would be taken for the new one. Nothing was written. Run the model with its parents (-s +" ~ node.name ~ ").") }}
  {%- endif -%}
  {%- set missing = out.values() | reject('in', by_key) | list -%}
  {%- if missing -%}{%- do by_key.update(dbt_vulcan.vulcan_log_read(missing | unique | list)) -%}{%- endif -%}
  {{ return(out) }}
{% endmacro %}
