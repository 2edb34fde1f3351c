package io.lazysession.sample.web;

import io.lazysession.sample.shop.Cart;
import io.lazysession.sample.shop.Catalog;
import io.lazysession.sample.shop.Preferences;
import io.lazysession.sample.shop.Product;
import io.lazysession.sample.shop.SignedInUser;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.server.ResponseStatusException;

/**
 * The shop's pages. Every page reads only the attributes it shows, so lazysession leaves the others
 * compressed: the catalog reads the user and the cart, only the history page reads the large report.
 */
@Controller
class ShopController {
  private static final int RECENTLY_VIEWED_MAX = 8;

  private final Catalog catalog;
  private final Clock clock = Clock.systemDefaultZone();
  private final String node;

  ShopController(Catalog catalog, @Value("${server.port:8080}") String port) {
    this.catalog = catalog;
    this.node = "node :" + port;
  }

  @GetMapping("/")
  String catalog(HttpSession session, Model model) {
    model.addAttribute("products", catalog.all());
    return page("catalog", session, model);
  }

  @GetMapping("/products/{id}")
  String product(@PathVariable String id, HttpSession session, Model model) {
    Product product = catalog.find(id)
        .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no product " + id));
    List<Product> viewed = recentlyViewed(session);
    List<Product> updated = new ArrayList<>(viewed);
    updated.removeIf(p -> p.id().equals(id));
    updated.add(0, product);
    if (updated.size() > RECENTLY_VIEWED_MAX) {
      updated.subList(RECENTLY_VIEWED_MAX, updated.size()).clear();
    }
    session.setAttribute(SessionKeys.RECENTLY_VIEWED, updated);
    model.addAttribute("product", product);
    model.addAttribute("recentlyViewed", viewed);
    return page("product", session, model);
  }

  @PostMapping("/cart")
  String addToCart(@RequestParam String productId, @RequestParam(defaultValue = "1") int quantity,
      @RequestParam(name = "_csrf", required = false) String csrf, HttpSession session) {
    requireSignedIn(session);
    checkCsrf(session, csrf);
    Product product = catalog.find(productId)
        .orElseThrow(() -> new ResponseStatusException(HttpStatus.BAD_REQUEST, "no product " + productId));
    if (quantity < 1 || quantity > 99) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quantity must be 1 to 99");
    }
    // Changed in place, without setAttribute: lazysession sees the new bytes when it saves.
    cart(session).add(product, quantity, LocalDateTime.now(clock));
    return "redirect:/cart";
  }

  @GetMapping("/cart")
  String cartPage(HttpSession session, Model model) {
    requireSignedIn(session);
    return page("cart", session, model);
  }

  @GetMapping("/history")
  String history(HttpSession session, Model model) {
    requireSignedIn(session);
    model.addAttribute("report", session.getAttribute(SessionKeys.PURCHASE_HISTORY));
    return page("history", session, model);
  }

  @GetMapping("/signin")
  String signInForm(HttpSession session, Model model) {
    return page("signin", session, model);
  }

  @PostMapping("/signin")
  String signIn(@RequestParam String username, HttpServletRequest request) {
    String name = username.trim().toLowerCase();
    if (!name.matches("[a-z0-9._-]{1,32}")) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
          "username: 1 to 32 letters, digits, dots, dashes or underscores");
    }
    HttpSession session = request.getSession();
    request.changeSessionId();
    session.setAttribute(SessionKeys.USER, new SignedInUser(name, capitalize(name),
        name + "@example.com", Set.of("ROLE_USER", "ROLE_CUSTOMER"), Instant.now(clock),
        "password"));
    session.setAttribute(SessionKeys.PRINCIPAL, name);
    session.setAttribute(SessionKeys.CSRF_TOKEN, UUID.randomUUID().toString());
    session.setAttribute(SessionKeys.PREFERENCES, new Preferences("EUR", "en-GB", 24, "light",
        Map.of("newsletter", "weekly", "currencyFormat", "symbol")));
    Map<String, Boolean> flags = new LinkedHashMap<>();
    flags.put("newCheckout", true);
    flags.put("recommendations", true);
    flags.put("betaSearch", false);
    session.setAttribute(SessionKeys.FLAGS, flags);
    if (session.getAttribute(SessionKeys.CART) == null) {
      session.setAttribute(SessionKeys.CART, new Cart());
    }
    session.setAttribute(SessionKeys.PURCHASE_HISTORY, catalog.purchaseHistory(name, clock));
    return "redirect:/";
  }

  @PostMapping("/signout")
  String signOut(HttpSession session) {
    session.invalidate();
    return "redirect:/";
  }

  private String page(String view, HttpSession session, Model model) {
    Integer visits = (Integer) session.getAttribute(SessionKeys.VISITS);
    session.setAttribute(SessionKeys.VISITS, visits == null ? 1 : visits + 1);
    model.addAttribute("user", session.getAttribute(SessionKeys.USER));
    model.addAttribute("cart", session.getAttribute(SessionKeys.CART));
    model.addAttribute("csrf", session.getAttribute(SessionKeys.CSRF_TOKEN));
    model.addAttribute("sessionId", session.getId());
    model.addAttribute("node", node);
    return view;
  }

  private static void requireSignedIn(HttpSession session) {
    if (session.getAttribute(SessionKeys.USER) == null) {
      throw new ResponseStatusException(HttpStatus.UNAUTHORIZED, "sign in first");
    }
  }

  private static void checkCsrf(HttpSession session, String token) {
    if (token == null || !token.equals(session.getAttribute(SessionKeys.CSRF_TOKEN))) {
      throw new ResponseStatusException(HttpStatus.FORBIDDEN, "missing or wrong CSRF token");
    }
  }

  private static Cart cart(HttpSession session) {
    Cart cart = (Cart) session.getAttribute(SessionKeys.CART);
    if (cart == null) {
      cart = new Cart();
      session.setAttribute(SessionKeys.CART, cart);
    }
    return cart;
  }

  @SuppressWarnings("unchecked")
  private static List<Product> recentlyViewed(HttpSession session) {
    List<Product> viewed = (List<Product>) session.getAttribute(SessionKeys.RECENTLY_VIEWED);
    return viewed == null ? List.of() : viewed;
  }

  private static String capitalize(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}
