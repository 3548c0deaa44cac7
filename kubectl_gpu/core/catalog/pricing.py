"""Hourly prices of instance types: the catalog's us-east-1 list prices, or a user's price file.

The catalog holds one price per instance type: the Linux on-demand list price in us-east-1, from
Karpenter's generated pricing table. Other regions, discounts (Savings Plans, EDP) and spot are not known
to us, so a price always says where it came from (`source`):

* ``price-file``: an entry of the file given with ``--price-file``;
* ``list-us-east-1``: the catalog's list price, whatever region the cluster runs in. When the cluster (or
  ``--region``) is in another region the price is still shown, marked as such, and a note says so: an idle
  node ranked by a us-east-1 price is still the right node to look at.

Types missing from a price file fall back to the list price, marked ``list-us-east-1``. The file itself is
read by the front end; this module only validates its parsed content (`parse_price_file`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Final

import msgspec

from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "CATALOG_REGION",
    "MAX_USD_PER_HOUR",
    "SOURCE_FILE",
    "SOURCE_LIST",
    "Price",
    "PriceBook",
    "PriceFile",
    "PriceFileError",
    "cluster_regions",
    "is_region",
    "parse_price_file",
    "price_book",
]

CATALOG_REGION: Final = "us-east-1"
SOURCE_FILE: Final = "price-file"
SOURCE_LIST: Final = "list-us-east-1"

_REGION = lazy_pattern(r"^[a-z]{2}(-[a-z]+)+-\d+$")
_INSTANCE_TYPE = lazy_pattern(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
_ARN_REGION = lazy_pattern(r"^arn:aws[a-z-]*:eks:([a-z0-9-]+):")
_FILE_KEYS: Final = frozenset({"region", "currency", "prices"})
# The dearest EC2 instance lists at a few hundred USD an hour (the catalog's dearest GPU type, p6-b300, at
# 142): past this bound a price is a typo or a unit mix-up (cents, per month), and far past it the money
# columns overflow Decimal's 28 digits. Zero stays valid: prepaid or owned capacity costs nothing more.
MAX_USD_PER_HOUR: Final = Decimal(10_000)


class PriceFileError(InvalidInput):
    """A price file we cannot use; the message is one line and names the entry."""


def is_region(text: str) -> bool:
    """An AWS region name such as us-east-1, eu-central-2, us-gov-west-1."""
    return bool(_REGION.match(text))


class PriceFile(msgspec.Struct, frozen=True):
    """Validated content of a price file: instance type -> USD per hour, and the region it is for."""

    prices: Mapping[str, Decimal]
    region: str | None = None
    name: str = "price file"


class Price(msgspec.Struct, frozen=True):
    usd_per_hour: Decimal
    source: str  # SOURCE_FILE | SOURCE_LIST | "nodeoverlay" (core.scheduling.overlay_prices)
    overlay: str | None = None  # the NodeOverlay that set or adjusted the price

    @property
    def as_float(self) -> float:
        return float(self.usd_per_hour)


def _price_value(value: object, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise PriceFileError(f"{where}: price must be a number (USD per hour), got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise PriceFileError(f"{where}: price must be a finite number, got {value!r}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise PriceFileError(f"{where}: price must be a number (USD per hour), got {value!r}") from None
    if not number.is_finite():
        raise PriceFileError(f"{where}: price must be a finite number, got {value!r}")
    if number < 0:
        raise PriceFileError(f"{where}: price must be zero or more, got {value!r}")
    if number > MAX_USD_PER_HOUR:
        raise PriceFileError(
            f"{where}: price must be at most {MAX_USD_PER_HOUR:,} USD per hour "
            f"(EC2's dearest instance costs under 1,000), got {value}"
        )
    return number


def parse_price_file(data: object, name: str = "price file") -> PriceFile:
    """Validate a parsed price file (YAML or JSON). Two forms are accepted::

        region: eu-west-1          # optional
        currency: USD              # optional; only USD
        prices:
          g6e.12xlarge: 12.72
          p5.48xlarge: 61.2

    or the flat form ``{"g6e.12xlarge": 12.72, "region": "eu-west-1"}``.
    """
    if not isinstance(data, dict):
        got = "nothing" if data is None else type(data).__name__
        raise PriceFileError(f"{name}: expected a mapping of instance type to USD per hour, got {got}")
    if "prices" in data:
        unknown = sorted(str(k) for k in data if k not in _FILE_KEYS)
        if unknown:
            raise PriceFileError(f"{name}: unknown key {unknown[0]!r} (expected region, currency and prices)")
        entries = data["prices"]
        if not isinstance(entries, dict):
            raise PriceFileError(f"{name}: 'prices' must be a mapping of instance type to USD per hour")
    else:
        entries = {k: v for k, v in data.items() if k not in ("region", "currency")}
    region = data.get("region")
    if region is not None and (not isinstance(region, str) or not is_region(region)):
        raise PriceFileError(f"{name}: region must be an AWS region such as eu-west-1, got {region!r}")
    currency = data.get("currency")
    if currency is not None and currency != "USD":
        raise PriceFileError(f"{name}: currency must be USD, got {currency!r}")
    prices: dict[str, Decimal] = {}
    for key, value in entries.items():
        if not isinstance(key, str) or not _INSTANCE_TYPE.match(key):
            raise PriceFileError(f"{name}: {key!r} is not an instance type name such as g6e.12xlarge")
        prices[key] = _price_value(value, f"{name}: {key}")
    if not prices:
        raise PriceFileError(f"{name}: no prices in the file")
    return PriceFile(prices=prices, region=region, name=name)


class PriceBook(msgspec.Struct, frozen=True):
    """Where each instance type's price comes from, and in which region the cluster runs."""

    catalog: Catalog
    file: PriceFile | None = None
    region: str | None = None  # the region prices are wanted for; None when unknown

    def price(self, instance_type: str | None) -> Price | None:
        if not instance_type:
            return None
        if self.file is not None and instance_type in self.file.prices:
            return Price(self.file.prices[instance_type], SOURCE_FILE)
        spec = self.catalog.by_name(instance_type)
        if spec is None or spec.price_usd_per_hour is None:
            return None
        return Price(Decimal(str(spec.price_usd_per_hour)), SOURCE_LIST)

    @property
    def list_is_foreign(self) -> bool:
        """The list prices are for another region than the one asked for."""
        return self.region is not None and self.region != CATALOG_REGION

    def notes(self, instance_types: Iterable[str | None]) -> list[str]:
        """What the reader must know about the prices of these instance types."""
        out: list[str] = []
        used = sorted(
            {t for t in instance_types if t and (p := self.price(t)) is not None and p.source == SOURCE_LIST}
        )
        if not used:
            return out
        if self.file is not None:
            out.append(
                f"{len(used)} instance type(s) not in {self.file.name} ({', '.join(used[:5])}"
                f"{', ...' if len(used) > 5 else ''}) are priced at the us-east-1 on-demand list price "
                "(marked list-us-east-1)"
            )
        elif self.list_is_foreign:
            out.append(
                f"prices are us-east-1 Linux on-demand list prices (Karpenter's pricing table); the cluster "
                f"is in {self.region}, where prices differ: pass --price-file with your prices"
            )
        return out


def cluster_regions(node_labels: Iterable[Mapping[str, str]], context: str | None = None) -> list[str]:
    """Regions the nodes report (`topology.kubernetes.io/region`), else the one in an EKS context ARN."""
    found = sorted({r for labels in node_labels if (r := labels.get("topology.kubernetes.io/region"))})
    if found:
        return found
    match = _ARN_REGION.match(context or "")
    return [match.group(1)] if match else []


def price_book(
    catalog: Catalog,
    *,
    price_file: PriceFile | None = None,
    region: str | None = None,
    detected: Iterable[str] = (),
) -> PriceBook:
    """Settle the pricing region: --region, else the price file's, else the cluster's (when it has one).

    Raises PriceFileError when --region and the price file's region disagree, or --region is malformed.
    """
    if region is not None and not is_region(region):
        raise PriceFileError(f"--region: not an AWS region: {region!r} (e.g. us-east-1, eu-west-1)")
    file_region = price_file.region if price_file else None
    if region and file_region and region != file_region:
        raise PriceFileError(
            f"--region {region} disagrees with the price file's region {file_region}; use one region"
        )
    chosen = region or file_region
    if chosen is None:
        regions = list(detected)
        chosen = regions[0] if len(regions) == 1 else None
    return PriceBook(catalog=catalog, file=price_file, region=chosen)
