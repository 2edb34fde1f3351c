package io.lazysession.sample.shop;

import java.io.Serial;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The shopping cart kept in the session. Mutable: adding a product changes it in place, and lazysession
 * notices the change when the session is saved (the re-encoded bytes differ), even though the
 * application does not call {@code setAttribute} again.
 */
public final class Cart implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final List<CartLine> lines = new ArrayList<>();

  public void add(Product product, int quantity, LocalDateTime now) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).product().id().equals(product.id())) {
        lines.set(i, lines.get(i).plus(quantity));
        return;
      }
    }
    lines.add(new CartLine(product, quantity, now));
  }

  public List<CartLine> lines() {
    return List.copyOf(lines);
  }

  public int itemCount() {
    return lines.stream().mapToInt(CartLine::quantity).sum();
  }

  public BigDecimal total() {
    return lines.stream().map(CartLine::total).reduce(BigDecimal.ZERO, BigDecimal::add);
  }
}
