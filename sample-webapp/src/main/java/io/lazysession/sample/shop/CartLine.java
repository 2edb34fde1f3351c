package io.lazysession.sample.shop;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDateTime;

/** One line of the cart: a product, how many, and when it was first added. */
public record CartLine(Product product, int quantity, LocalDateTime addedAt) implements Serializable {

  public BigDecimal total() {
    return product.price().multiply(BigDecimal.valueOf(quantity));
  }

  CartLine plus(int more) {
    return new CartLine(product, quantity + more, addedAt);
  }
}
