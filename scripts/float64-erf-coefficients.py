#!/usr/bin/env python3
"""Prints the Chebyshev coefficients of erfcx(x) = exp(x^2) erfc(x) on
[0.75, 6] that compiler/lib/Transforms/LowerToSimt/Float64Math.cpp evaluates
for fp64 erf and erfc (erfc(x) = exp(-x^2) erfcx(x) there).

The values come from the series erf(x) = 2/sqrt(pi) exp(-x^2) sum_n
2^n x^(2n+1) / (1*3*...*(2n+1)), whose terms are all positive, summed with
Python's decimal module at 60 digits, so the coefficients are exact to far
below fp64's rounding; the interpolation is at the Chebyshev points of the
first kind.
"""
from decimal import Decimal, getcontext

getcontext().prec = 60
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
LO, HI, DEGREE = Decimal("0.75"), Decimal(6), 34


def cos(x):
    x %= 2 * PI
    total, term, n = Decimal(0), Decimal(1), 0
    while abs(term) > Decimal(10) ** -58:
        total += term
        term = -term * x * x / ((2 * n + 1) * (2 * n + 2))
        n += 1
    return total


def erfcx(x):
    x2, term, total, n = x * x, x, Decimal(0), 0
    while term > Decimal(10) ** -58 * total or n == 0:
        total += term
        n += 1
        term = term * 2 * x2 / (2 * n + 1)
    return (1 - total * 2 / PI.sqrt() * (-x2).exp()) * x2.exp()


def main():
    n = DEGREE + 1
    angles = [PI * (k + Decimal("0.5")) / n for k in range(n)]
    values = [erfcx((HI + LO) / 2 + (HI - LO) / 2 * cos(a)) for a in angles]
    coefficients = [sum(v * cos(j * a) for v, a in zip(values, angles)) * 2 / n for j in range(n)]
    coefficients[0] /= 2
    print(",\n".join(f"    {float(c)!r}" for c in coefficients))


if __name__ == "__main__":
    main()
