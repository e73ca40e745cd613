# INCREMENTAL_BY_TIME_RANGE as a Python model (the spec's product sales example): quantity and
# sales per product and day. dbt-vulcan calls model() once per batch of 30 days, with the
# batch's bounds in dbt.vulcan; the DataFrame it returns goes through the same output filter,
# grain audit and interval state as a SQL model's query.
import pyspark.sql.functions as F


def model(dbt, session):
    dbt.config(
        materialized="incremental_by_time_range",
        batch_size=30,
        meta={
            "time_column": "order_date",
            "start": "2025-01-01",
            "cron": "@daily",
            "grains": ["order_date", "product_id"],
        },
    )
    batch = dbt.vulcan  # start, end (inclusive), end_exclusive, execution_time; render(sql)
    orders = dbt.ref("orders").where(
        F.col("order_date").between(batch.start.date(), batch.end.date())
    )
    items = dbt.ref("order_items").select("order_id", "product_id", "quantity", "unit_price")
    products = dbt.ref("products").select("product_id", F.col("name").alias("product_name"))
    return (
        orders.join(items, "order_id")
        .join(products, "product_id")
        .groupBy("order_date", "product_id", "product_name")
        .agg(
            F.sum("quantity").cast("bigint").alias("total_quantity"),
            F.sum(F.col("quantity") * F.col("unit_price"))
            .cast("decimal(12,2)")
            .alias("total_sales_amount"),
        )
    )
