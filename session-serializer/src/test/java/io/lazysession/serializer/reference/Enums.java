package io.lazysession.serializer.reference;

/** The enums of the reference session. */
public final class Enums {
  private Enums() {}

  public enum FeatureFlag { NEW_CHECKOUT, DARK_MODE, BETA_SEARCH, ONE_CLICK_BUY, LOYALTY_BANNER }

  public enum CheckoutStep { CART, SHIPPING, PAYMENT, REVIEW, DONE }
}
