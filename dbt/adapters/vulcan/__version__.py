# The release, written once: `python scripts/version.py set <release>` writes it here and into
# its copies dbt reads (dbt_project.yml twice, the vulcan_release() macro).
version = "0.1.0"
