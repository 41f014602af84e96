"""Print products whose stock is below the configured threshold."""
import csv
import json

with open("data/config.json") as f:
    threshold = json.load(f)["lowStockThreshold"]

with open("data/products.csv") as f:
    for row in csv.DictReader(f):
        if int(row["stock"]) < threshold:
            print(f"{row['sku']}\t{row['stock']}")
