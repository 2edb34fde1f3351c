package io.lazysession.sample.web;

import io.lazysession.sample.shop.Cart;
import io.lazysession.sample.shop.Catalog;
import io.lazysession.sample.shop.Product;
import jakarta.servlet.http.HttpSession;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.WebAttributes;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * The shop's pages. Every page reads only the attributes it shows, so lazysession leaves the others
 * compressed: the catalog reads the user and the cart, only the history page reads the large report.
 */
@Controller
class ShopController {
  private static final int RECENTLY_VIEWED_MAX = 8;

  private final Catalog catalog;
  private final Clock clock = Clock.systemDefaultZone();

  private final ObjectProvider<ClientRegistrationRepository> identityProviders;

  ShopController(Catalog catalog, ObjectProvider<ClientRegistrationRepository> identityProviders) {
    this.catalog = catalog;
    this.identityProviders = identityProviders;
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
    session.setAttribute(ShopAttributes.RECENTLY_VIEWED, updated);
    model.addAttribute("product", product);
    model.addAttribute("recentlyViewed", viewed);
    return page("product", session, model);
  }

  @PostMapping("/cart")
  String addToCart(@RequestParam String productId, @RequestParam(defaultValue = "1") int quantity,
      HttpSession session, RedirectAttributes redirect) {
    requireSignedIn(session); // Spring Security checked the CSRF token and the sign-in already
    Product product = catalog.find(productId)
        .orElseThrow(() -> new ResponseStatusException(HttpStatus.BAD_REQUEST, "no product " + productId));
    if (quantity < 1 || quantity > 99) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quantity must be 1 to 99");
    }
    // Changed in place, without setAttribute: lazysession sees the new bytes when it saves.
    cart(session).add(product, quantity, LocalDateTime.now(clock));
    // Post/redirect/get: the cart page says what was added once, through Spring MVC's flash map (kept
    // in the session until the redirected request, which may reach another node, takes it).
    redirect.addFlashAttribute("addedProduct", product.name());
    redirect.addFlashAttribute("addedQuantity", quantity);
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
    model.addAttribute("report", session.getAttribute(ShopAttributes.PURCHASE_HISTORY));
    return page("history", session, model);
  }

  /** The sign-in form; Spring Security's form login handles the POST (see SecurityConfiguration). */
  @GetMapping("/signin")
  String signInForm(HttpSession session, Model model) {
    List<ClientRegistration> providers = new ArrayList<>();
    if (identityProviders.getIfAvailable() instanceof Iterable<?> registrations) {
      registrations.forEach(r -> providers.add((ClientRegistration) r));
    }
    model.addAttribute("identityProviders", providers);
    // Where a failed sign-in left Spring Security's exception (its failure handler stores it in the
    // session): an OAuth2 failure shows the provider's error code, not the form login's message.
    if (session.getAttribute(WebAttributes.AUTHENTICATION_EXCEPTION)
        instanceof OAuth2AuthenticationException failed) {
      model.addAttribute("identityProviderError", failed.getError().getErrorCode());
    }
    return page("signin", session, model);
  }

  /** Fills what every page's header and footer show; used by the checkout's pages too. */
  static String page(String view, HttpSession session, Model model) {
    Integer visits = (Integer) session.getAttribute(ShopAttributes.VISITS);
    session.setAttribute(ShopAttributes.VISITS, visits == null ? 1 : visits + 1);
    model.addAttribute("user", session.getAttribute(ShopAttributes.USER));
    model.addAttribute("cart", session.getAttribute(ShopAttributes.CART));
    model.addAttribute("csrf", csrfToken());
    model.addAttribute("sessionId", session.getId());
    model.addAttribute("node", node());
    return view;
  }

  /** Which node served the page: its port (the configured one may be 0, a random port). */
  private static String node() {
    return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes
        ? "node :" + attributes.getRequest().getLocalPort() : "node";
  }

  /**
   * Spring Security's CSRF token for this request's forms (masked per request; the session holds the
   * raw token). Asking for it is what makes Spring Security create and store it.
   */
  static String csrfToken() {
    if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes
        && attributes.getRequest().getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
      return token.getToken();
    }
    return "";
  }

  private static void requireSignedIn(HttpSession session) {
    if (session.getAttribute(ShopAttributes.USER) == null) {
      throw new ResponseStatusException(HttpStatus.UNAUTHORIZED, "sign in first");
    }
  }

  private static Cart cart(HttpSession session) {
    Cart cart = (Cart) session.getAttribute(ShopAttributes.CART);
    if (cart == null) {
      cart = new Cart();
      session.setAttribute(ShopAttributes.CART, cart);
    }
    return cart;
  }

  @SuppressWarnings("unchecked")
  private static List<Product> recentlyViewed(HttpSession session) {
    List<Product> viewed = (List<Product>) session.getAttribute(ShopAttributes.RECENTLY_VIEWED);
    return viewed == null ? List.of() : viewed;
  }
}
