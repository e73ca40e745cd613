{#- SCD_TYPE_2_BY_TIME: history from an `updated_at` column (scd2_sql.sql has
    the rules). Without `start` each run is one batch over the whole query; with `start` the
    intervals run one batch at a time, in order, and are tracked in the state log (a source
    that already holds history). Writes: scd2_<file_format>.sql beside this file; the run's
    life: engine/materialize.sql, with the steps below (shared with scd_type_2_by_column). -#}

{% materialization scd_type_2_by_time, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('scd_type_2_by_time', dbt_vulcan.vulcan_steps_scd2())) }}
{% endmaterialization %}
