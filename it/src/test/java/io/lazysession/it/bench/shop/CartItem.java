package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.Objects;

/** One line of a {@link Cart}. Immutable. */
public final class CartItem implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final String sku;
  private final String name;
  private final int quantity;
  private final BigDecimal unitPrice;

  public CartItem(String sku, String name, int quantity, BigDecimal unitPrice) {
    this.sku = sku;
    this.name = name;
    this.quantity = quantity;
    this.unitPrice = unitPrice;
  }

  public String sku() {
    return sku;
  }

  public int quantity() {
    return quantity;
  }

  CartItem withQuantity(int newQuantity) {
    return new CartItem(sku, name, newQuantity, unitPrice);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CartItem other && quantity == other.quantity && sku.equals(other.sku)
        && name.equals(other.name) && unitPrice.equals(other.unitPrice);
  }

  @Override
  public int hashCode() {
    return Objects.hash(sku, name, quantity, unitPrice);
  }
}
