{#- What a model's contract is, read from its node: whether it is enforced, and its part of the
    model's fingerprint (planning). -#}

{#- Whether `node` (the model, or a graph node in an operation) has an enforced contract. -#}
{% macro vulcan_contract_enforced(node) %}
  {%- set contract = (node.get('config') or {}).get('contract') or {} -%}
  {{ return(contract.get('enforced') is sameas true) }}
{% endmacro %}

{#- The contract's part of the model's fingerprint: [[name, data_type], ...] in the contract's
    order when it is enforced, else none (tests/oracle/planning.py's contract_signature is the same). -#}
{% macro vulcan_contract_signature(node) %}
  {%- if not dbt_vulcan.vulcan_contract_enforced(node) -%}{{ return(none) }}{%- endif -%}
  {%- set signature = [] -%}
  {%- for name, column in (node.columns or {}).items() -%}
    {%- do signature.append([column.get('name') or name, column.get('data_type')]) -%}
  {%- endfor -%}
  {{ return(signature) }}
{% endmacro %}
