package io.lazysession.it.bench.shop;

/** Where the customer is in the checkout. */
public enum CheckoutStep {
  CART, SHIPPING, PAYMENT, REVIEW
}
