package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A past order, as an order-history page keeps it in the session. Immutable. */
public final class Order implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final String number;
  private final Instant placedAt;
  private final String status;
  private final BigDecimal total;
  private final ArrayList<CartItem> lines;
  private final Address deliveredTo;

  public Order(String number, Instant placedAt, String status, BigDecimal total,
      List<CartItem> lines, Address deliveredTo) {
    this.number = number;
    this.placedAt = placedAt;
    this.status = status;
    this.total = total;
    this.lines = new ArrayList<>(lines);
    this.deliveredTo = deliveredTo;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Order other && number.equals(other.number)
        && placedAt.equals(other.placedAt) && status.equals(other.status)
        && total.equals(other.total) && lines.equals(other.lines)
        && deliveredTo.equals(other.deliveredTo);
  }

  @Override
  public int hashCode() {
    return Objects.hash(number, placedAt);
  }
}
