"""Writes the integration project's seeds: the Orders360 shop's raw data (seeds/raw), a
reference seed (seeds/vulcan_demo) and the expected output of each model (seeds/expected).

The data is drawn from a fixed-seed random generator, so every run writes the same files.
The expected outputs are computed here, in plain Python, independently of the models' SQL:
the equality tests then check what dbt-vulcan built against them. Run it only when the data
or a model's definition changes, and commit the CSVs:

    .venv/bin/python integration_project/scripts/generate_seeds.py
"""

from __future__ import annotations

import csv
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
FIRST_DAY = date(2025, 1, 1)
LAST_DAY = date(2025, 4, 30)
# run.sh pins vulcan_execution_time to this: daily intervals end on Apr 29, weekly on Apr 27
EXECUTION_TIME = datetime(2025, 4, 30, 6, 0, 0)

REGIONS = [(1, "North"), (2, "South"), (3, "East"), (4, "West"), (5, "Central")]
# warehouse 5 never ships an order: the LEFT JOINs of the view keep it
WAREHOUSES = [
    (1, "Oslo Hub", 1, "Oslo"),
    (2, "Lisbon Depot", 2, "Lisbon"),
    (3, "Warsaw Center", 3, "Warsaw"),
    (4, "Dublin Yard", 4, "Dublin"),
    (5, "Bergen Reserve", 1, "Bergen"),
]
ACTIVE_WAREHOUSES = [1, 2, 3, 4]
CATALOG = {
    "Electronics": [
        ("Headphones", "59.90"),
        ("Charger", "19.50"),
        ("Speaker", "129.00"),
        ("Keyboard", "45.25"),
    ],
    "Home": [("Lamp", "34.99"), ("Kettle", "27.40"), ("Towel Set", "22.00"), ("Clock", "18.75")],
    "Garden": [
        ("Hose", "24.60"),
        ("Shears", "31.10"),
        ("Planter", "12.95"),
        ("Seeds Pack", "4.50"),
    ],
    "Toys": [("Puzzle", "14.99"), ("Robot Kit", "79.00"), ("Blocks", "25.50"), ("Kite", "16.20")],
    "Books": [("Cookbook", "29.90"), ("Atlas", "42.00"), ("Novel", "11.99"), ("Guide", "17.45")],
}
FIRST_NAMES = [
    "Ada",
    "Ben",
    "Cleo",
    "Dev",
    "Eva",
    "Finn",
    "Gia",
    "Hugo",
    "Ines",
    "Jon",
    "Kai",
    "Lena",
    "Milo",
    "Nora",
    "Omar",
    "Pia",
    "Quin",
    "Rosa",
    "Sam",
    "Tara",
]
LAST_NAMES = [
    "Berg",
    "Costa",
    "Dahl",
    "Evans",
    "Ford",
    "Gruber",
    "Hale",
    "Ivanov",
    "Jensen",
    "Klein",
    "Lopez",
    "Moreau",
    "Novak",
    "Olsen",
    "Price",
]
CARRIERS = ["UPS", "DHL", "FedEx", "PostNord"]
CUSTOMERS = 60
BUYING_CUSTOMERS = 56  # customers 57..60 never order: FULL model rows with zero orders
CENT = Decimal("0.01")


@dataclass
class Order:
    order_id: int
    customer_id: int
    order_date: date
    warehouse_id: int
    status: str
    total_amount: Decimal


def money(value: Decimal) -> str:
    return str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def ratio(total: Decimal, count: int) -> str:
    """total / count rounded half up to cents, like cast(... as decimal(12,2)) in Spark."""
    return money(total / Decimal(count)) if count else ""


def ts(value: date | datetime) -> str:
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.strftime("%Y-%m-%d %H:%M:%S")


def write(path: str, header: list[str], rows: list[list[Any]]) -> None:
    target = SEEDS / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(header)
        out.writerows(["" if v is None else v for v in row] for row in rows)
    print(f"{target.relative_to(SEEDS.parent)}: {len(rows)} rows, {target.stat().st_size} bytes")


def main() -> None:
    rng = random.Random(360)
    days = [FIRST_DAY + timedelta(days=i) for i in range((LAST_DAY - FIRST_DAY).days + 1)]

    products = []
    for category, items in CATALOG.items():
        for name, price in items:
            products.append((len(products) + 1, name, category, Decimal(price)))
    product_by_id = {p[0]: p for p in products}

    customers = []
    for cid in range(1, CUSTOMERS + 1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        signup = FIRST_DAY - timedelta(days=rng.randint(1, 400))
        customers.append(
            (
                cid,
                f"{first} {last}",
                f"{first}.{last}{cid}@example.com".lower(),
                signup,
                rng.choice(REGIONS)[0],
            )
        )
    customer_name = {c[0]: c[1] for c in customers}

    orders: list[Order] = []
    items: list[tuple[int, int, int, int, Decimal]] = []
    shipments: list[tuple[int, int, date, str]] = []
    for day in days:
        for _ in range(rng.randint(4, 10)):
            order_id = len(orders) + 1
            chosen = rng.sample(products, rng.randint(1, 3))
            total = Decimal(0)
            for product in chosen:
                quantity = rng.randint(1, 4)
                items.append((len(items) + 1, order_id, product[0], quantity, product[3]))
                total += quantity * product[3]
            shipped = day + timedelta(days=rng.randint(1, 4))
            if rng.random() < 0.04:
                status = "cancelled"
            elif shipped > LAST_DAY:
                status = "processing"
            else:
                status = "delivered" if shipped + timedelta(days=3) <= LAST_DAY else "shipped"
                shipments.append((len(shipments) + 1, order_id, shipped, rng.choice(CARRIERS)))
            orders.append(
                Order(
                    order_id,
                    rng.randint(1, BUYING_CUSTOMERS),
                    day,
                    rng.choice(ACTIVE_WAREHOUSES),
                    status,
                    total,
                )
            )
    order_by_id = {o.order_id: o for o in orders}

    # --- raw data ------------------------------------------------------------------------
    write("raw/regions.csv", ["region_id", "region_name"], [list(r) for r in REGIONS])
    write(
        "raw/warehouses.csv",
        ["warehouse_id", "name", "region_id", "city"],
        [list(w) for w in WAREHOUSES],
    )
    write(
        "raw/products.csv",
        ["product_id", "name", "category", "unit_price"],
        [[p[0], p[1], p[2], money(p[3])] for p in products],
    )
    write(
        "raw/customers.csv",
        ["customer_id", "name", "email", "signup_date", "region_id"],
        [list(c) for c in customers],
    )
    write(
        "raw/orders.csv",
        ["order_id", "customer_id", "order_date", "warehouse_id", "status", "total_amount"],
        [
            [
                o.order_id,
                o.customer_id,
                o.order_date,
                o.warehouse_id,
                o.status,
                money(o.total_amount),
            ]
            for o in orders
        ],
    )
    write(
        "raw/order_items.csv",
        ["order_item_id", "order_id", "product_id", "quantity", "unit_price"],
        [[i[0], i[1], i[2], i[3], money(i[4])] for i in items],
    )
    write(
        "raw/shipments.csv",
        ["shipment_id", "order_id", "shipped_date", "carrier"],
        [list(s) for s in shipments],
    )
    # the SEED kind: static reference data with declared column types
    launches = [
        [n, rng.choice(products)[0], FIRST_DAY + timedelta(days=rng.randint(0, 119))]
        for n in range(1, 25)
    ]
    write("vulcan_demo/product_launches.csv", ["id", "item_id", "event_date"], launches)

    # --- expected: sales.daily_sales (complete days before the execution time) -------------
    daily: dict[date, list[Order]] = defaultdict(list)
    for o in orders:
        if o.order_date < EXECUTION_TIME.date():
            daily[o.order_date].append(o)
    write(
        "expected/expected_daily_sales.csv",
        ["order_date", "total_orders", "total_revenue", "last_order_id"],
        [
            [
                ts(d),
                len(os),
                money(sum((o.total_amount for o in os), Decimal(0))),
                str(max(o.order_id for o in os)),
            ]
            for d, os in sorted(daily.items())
        ],
    )

    # --- expected: vulcan_demo.product_daily_sales (a Python model; complete days) ---------
    per_product: dict[tuple[date, int], list[tuple[int, Decimal]]] = defaultdict(list)
    for item in items:
        order = order_by_id[item[1]]
        if order.order_date < EXECUTION_TIME.date():
            per_product[(order.order_date, item[2])].append((item[3], item[4]))
    write(
        "expected/python/expected_product_daily_sales.csv",
        ["order_date", "product_id", "product_name", "total_quantity", "total_sales_amount"],
        [
            [
                day,
                product_id,
                product_by_id[product_id][1],
                sum(q for q, _ in sold),
                money(sum((q * price for q, price in sold), Decimal(0))),
            ]
            for (day, product_id), sold in sorted(per_product.items())
        ],
    )

    # --- expected: sales.weekly_sales (Monday weeks that ended before the execution time) --
    weekly: dict[date, list[Order]] = defaultdict(list)
    for d, os in daily.items():
        monday = d - timedelta(days=d.weekday())
        if monday + timedelta(days=7) <= EXECUTION_TIME.date():
            weekly[monday].extend(os)
    write(
        "expected/expected_weekly_sales.csv",
        ["order_date", "total_orders", "total_revenue", "avg_order_value"],
        [
            [
                ts(w),
                len(os),
                money(sum((o.total_amount for o in os), Decimal(0))),
                ratio(sum((o.total_amount for o in os), Decimal(0)), len(os)),
            ]
            for w, os in sorted(weekly.items())
        ],
    )

    # --- expected: vulcan_demo.warehouse_category_sales (INCREMENTAL_BY_PARTITION) ---------
    warehouse_name = {w[0]: w[1] for w in WAREHOUSES}
    cells: dict[tuple[int, str, date], dict[str, Any]] = {}
    for item in items:
        order = order_by_id[item[1]]
        category = product_by_id[item[2]][2]
        cell = cells.setdefault(
            (order.warehouse_id, category, order.order_date),
            {"orders": set(), "amount": Decimal(0), "customers": set()},
        )
        cell["orders"].add(order.order_id)
        cell["amount"] += item[3] * item[4]
        cell["customers"].add(order.customer_id)
    write(
        "expected/expected_warehouse_category_sales.csv",
        [
            "warehouse_id",
            "warehouse_name",
            "category",
            "order_date",
            "partitioned_analysis_key",
            "total_transactions",
            "total_sales_amount",
            "unique_customers",
        ],
        [
            [
                w,
                warehouse_name[w],
                c,
                d,
                f"{w}_{c}_{d}",
                len(v["orders"]),
                money(v["amount"]),
                len(v["customers"]),
            ]
            for (w, c, d), v in sorted(cells.items())
        ],
    )

    # --- expected: vulcan_demo.shipment_log (INCREMENTAL_UNMANAGED, one run) ---------------
    write(
        "expected/expected_shipment_log.csv",
        [
            "shipment_id",
            "order_id",
            "shipped_date",
            "carrier",
            "customer_id",
            "customer_name",
            "order_date",
            "days_to_ship",
            "shipment_event_timestamp",
        ],
        [
            [
                s[0],
                s[1],
                s[2],
                s[3],
                order_by_id[s[1]].customer_id,
                customer_name[order_by_id[s[1]].customer_id],
                order_by_id[s[1]].order_date,
                (s[2] - order_by_id[s[1]].order_date).days,
                ts(EXECUTION_TIME),
            ]
            for s in shipments
        ],
    )

    # --- expected: vulcan_demo.customer_summary (FULL) -------------------------------------
    spent: dict[int, Decimal] = defaultdict(Decimal)
    placed: dict[int, set[int]] = defaultdict(set)
    for item in items:
        order = order_by_id[item[1]]
        spent[order.customer_id] += item[3] * item[4]
        placed[order.customer_id].add(order.order_id)
    write(
        "expected/expected_customer_summary.csv",
        ["customer_id", "customer_name", "email", "total_orders", "total_spent", "avg_order_value"],
        [
            [
                c[0],
                c[1],
                c[2],
                len(placed[c[0]]),
                money(spent[c[0]]),
                ratio(spent[c[0]], len(placed[c[0]])),
            ]
            for c in customers
        ],
    )

    # --- expected: vulcan_demo.warehouse_performance (VIEW) --------------------------------
    region_name = dict(REGIONS)
    perf: dict[tuple[int, date], dict[str, Any]] = {}
    for item in items:
        order = order_by_id[item[1]]
        cell = perf.setdefault(
            (order.warehouse_id, order.order_date),
            {"orders": set(), "amount": Decimal(0), "customers": set()},
        )
        cell["orders"].add(order.order_id)
        cell["amount"] += item[3] * item[4]
        cell["customers"].add(order.customer_id)
    rows = []
    for w in WAREHOUSES:
        dates = sorted(d for (wid, d) in perf if wid == w[0])
        if not dates:  # no orders: one row of NULLs and zero counts
            rows.append([w[0], w[1], region_name[w[2]], None, None, 0, None, 0])
        for d in dates:
            v = perf[(w[0], d)]
            rows.append(
                [
                    w[0],
                    w[1],
                    region_name[w[2]],
                    d,
                    f"{w[0]}_{d}",
                    len(v["orders"]),
                    money(v["amount"]),
                    len(v["customers"]),
                ]
            )
    write(
        "expected/expected_warehouse_performance.csv",
        [
            "warehouse_id",
            "warehouse_name",
            "region_name",
            "order_date",
            "warehouse_performance_key",
            "total_transactions",
            "total_sales_amount",
            "unique_customers",
        ],
        rows,
    )

    # --- expected: tracked.order_lines (every order's lines: a build from nothing holds every
    # group, and the incremental build syncs its window and keeps the rest) ---------------------
    write(
        "expected/tracked/expected_order_lines.csv",
        ["order_id", "order_date", "order_item_id", "product_id", "quantity", "unit_price"],
        [
            [i[1], order_by_id[i[1]].order_date, i[0], i[2], i[3], money(i[4])]
            for i in items
            if order_by_id[i[1]].order_date <= LAST_DAY
        ],
    )


if __name__ == "__main__":
    main()
