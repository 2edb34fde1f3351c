package io.lazysession.sample.web;

import org.springframework.session.FindByIndexNameSessionRepository;

/** The names of the attributes the shop keeps in its session. */
final class ShopAttributes {
  static final String USER = "user";
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  static final String CART = "cart";
  static final String RECENTLY_VIEWED = "recentlyViewed";
  static final String PREFERENCES = "preferences";
  static final String FLAGS = "flags";
  static final String PURCHASE_HISTORY = "purchaseHistory";
  static final String VISITS = "visits";

  private ShopAttributes() {}
}
