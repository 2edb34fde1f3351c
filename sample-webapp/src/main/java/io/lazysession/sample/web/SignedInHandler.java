package io.lazysession.sample.web;

import io.lazysession.sample.shop.Cart;
import io.lazysession.sample.shop.Catalog;
import io.lazysession.sample.shop.Preferences;
import io.lazysession.sample.shop.SignedInUser;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.web.authentication.SavedRequestAwareAuthenticationSuccessHandler;
import org.springframework.stereotype.Component;

/**
 * After Spring Security signed a user in, fills the shop's part of the session (profile, preferences,
 * flags, cart, purchase history), then goes where Spring Security would: the page that asked for the
 * sign-in (the saved request) or the catalog. Thread-safe: no state of its own.
 */
@Component
class SignedInHandler extends SavedRequestAwareAuthenticationSuccessHandler {
  private final Catalog catalog;
  private final Clock clock = Clock.systemDefaultZone();

  SignedInHandler(Catalog catalog) {
    this.catalog = catalog;
    setDefaultTargetUrl("/");
  }

  @Override
  public void onAuthenticationSuccess(HttpServletRequest request, HttpServletResponse response,
      Authentication authentication) throws ServletException, IOException {
    String name = authentication.getName();
    TreeSet<String> roles = new TreeSet<>();
    for (GrantedAuthority authority : authentication.getAuthorities()) {
      if (authority.getAuthority() != null && authority.getAuthority().startsWith("ROLE_")) {
        roles.add(authority.getAuthority());
      }
    }
    HttpSession session = request.getSession();
    session.setAttribute(ShopAttributes.USER, new SignedInUser(name, capitalize(name), name + "@example.com",
        java.util.Set.copyOf(roles), Instant.now(clock), "password"));
    session.setAttribute(ShopAttributes.PRINCIPAL, name);
    session.setAttribute(ShopAttributes.PREFERENCES, new Preferences("EUR", "en-GB", 24, "light",
        Map.of("newsletter", "weekly", "currencyFormat", "symbol")));
    Map<String, Boolean> flags = new LinkedHashMap<>();
    flags.put("newCheckout", true);
    flags.put("recommendations", true);
    flags.put("betaSearch", false);
    session.setAttribute(ShopAttributes.FLAGS, flags);
    if (session.getAttribute(ShopAttributes.CART) == null) {
      session.setAttribute(ShopAttributes.CART, new Cart());
    }
    session.setAttribute(ShopAttributes.PURCHASE_HISTORY, catalog.purchaseHistory(name, clock));
    super.onAuthenticationSuccess(request, response, authentication);
  }

  private static String capitalize(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}
