import contextlib
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_gpu.core.k8s.quantity import QuantityError, format_quantity, parse_quantity


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", Decimal(1)),
        ("500m", Decimal("0.5")),
        ("1500m", Decimal("1.5")),
        ("16Gi", Decimal(16 * 2**30)),
        ("128974848", Decimal(128974848)),
        ("129e6", Decimal(129000000)),
        ("123Mi", Decimal(123 * 2**20)),
        ("1.5Gi", Decimal(3 * 2**29)),
        ("100k", Decimal(100000)),
        ("2M", Decimal(2000000)),
        ("0.1", Decimal("0.1")),
        ("250u", Decimal("0.00025")),
        ("5n", Decimal("5e-9")),
        ("+3", Decimal(3)),
        (".5", Decimal("0.5")),
        (2, Decimal(2)),
    ],
)
def test_parses_exactly(text: str | int, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "text", ["", "abc", "1Gb", "1 Gi", "Gi", "1.2.3", "--1", "1e", "1ki", "1e999", "9" * 40]
)
def test_rejects_garbage_and_absurd(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_rejects_bool() -> None:
    with pytest.raises(QuantityError):
        parse_quantity(True)


@given(
    st.integers(min_value=0, max_value=10**12),
    st.sampled_from(["", "Ki", "Mi", "Gi", "Ti", "m", "k", "M", "G"]),
)
def test_integer_with_suffix_is_exact(number: int, suffix: str) -> None:
    factors = {
        "": 1,
        "Ki": 2**10,
        "Mi": 2**20,
        "Gi": 2**30,
        "Ti": 2**40,
        "m": Decimal("0.001"),
        "k": 1000,
        "M": 10**6,
        "G": 10**9,
    }
    assert parse_quantity(f"{number}{suffix}") == number * Decimal(factors[suffix])


@given(st.integers(min_value=0, max_value=2**50))
def test_binary_format_round_trips(number: int) -> None:
    value = Decimal(number)
    assert parse_quantity(format_quantity(value, binary=True)) == value


@given(st.integers(min_value=0, max_value=10**9))
def test_millis_format_round_trips(millis: int) -> None:
    value = Decimal(millis) / 1000
    assert parse_quantity(format_quantity(value)) == value


@given(st.text(max_size=20))
def test_never_raises_anything_but_quantity_error(text: str) -> None:
    with contextlib.suppress(QuantityError):
        parse_quantity(text)


def test_a_bool_after_an_equal_number_is_still_refused() -> None:
    """The parse is cached: `True` equals `1` as a key, and must not be answered as `1` was."""
    assert parse_quantity(1) == 1
    assert parse_quantity(1.0) == 1
    with pytest.raises(QuantityError):
        parse_quantity(True)
