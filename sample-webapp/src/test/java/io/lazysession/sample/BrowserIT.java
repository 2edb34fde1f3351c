package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisDump;
import io.lazysession.testing.RedisServerExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Drives the shop in a real headless Chromium: sign in with Spring Security's form login, add to cart,
 * open the payload page; and with two nodes on one Redis, sign in on one and carry on, still signed
 * in, on the other, then sign out everywhere. Needs a
 * Chromium and a matching chromedriver ({@code CHROME_BINARY}, {@code CHROMEDRIVER_BINARY}, default
 * {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver}); skipped when they are absent. Screenshots
 * go to {@code target/screenshots}.
 */
class BrowserIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  private SampleNode node;
  private SampleNode otherNode;
  private WebDriver driver;
  private Path profile;
  private RoundRobinBalancer balancer;

  @BeforeEach
  void startBrowser() throws IOException {
    File chrome = new File(setting("CHROME_BINARY", "/usr/bin/chromium"));
    File chromedriver = new File(setting("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"));
    Assumptions.assumeTrue(chrome.canExecute() && chromedriver.canExecute(),
        "needs Chromium and chromedriver (" + chrome + ", " + chromedriver + ")");
    profile = Files.createTempDirectory("lazysession-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chrome);
    options.addArguments(List.of("--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=1280,1000", "--user-data-dir=" + profile));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(chromedriver)
        .usingAnyFreePort()
        .build();
    node = SampleNode.start("spring.data.redis.url=" + redis.url());
    otherNode = SampleNode.start("spring.data.redis.url=" + redis.url());
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterEach
  void stop() {
    if (driver != null) {
      driver.quit();
    }
    if (node != null) {
      node.close();
    }
    if (otherNode != null) {
      otherNode.close();
    }
  }

  @Test
  void signInAddToCartAndPayload_inHeadlessChromium_showTheSession() throws IOException {
    String base = "http://localhost:" + node.port();
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));

    driver.get(base + "/signin");
    driver.findElement(By.id("username")).sendKeys("margaret");
    driver.findElement(By.id("password")).sendKeys("password");
    screenshot("1-signin");
    driver.findElement(By.id("signin-submit")).click();
    wait.until(ExpectedConditions.textToBe(By.id("signed-in-as"), "Margaret"));
    screenshot("2-catalog");

    List<WebElement> buttons = driver.findElements(By.cssSelector("button.add-to-cart"));
    assertThat(buttons).isNotEmpty();
    buttons.get(0).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-table")));
    assertThat(driver.findElements(By.cssSelector("tr.cart-line"))).hasSize(1);
    screenshot("3-cart");

    driver.findElement(By.id("nav-payload")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("payload-table")));
    List<WebElement> rows = driver.findElements(By.cssSelector("tr.payload-row"));
    assertThat(rows).extracting(row -> row.getAttribute("data-attribute"))
        .contains("user", "cart", "purchaseHistory", "SPRING_SECURITY_CONTEXT");
    assertThat(Long.parseLong(driver.findElement(By.id("payload-total")).getText())).isPositive();
    // The picture: the pack is one bar whose segments are the packed rows of the table, drawn.
    List<WebElement> packBars = driver.findElements(By.cssSelector("#payload-chart .bar.pack"));
    assertThat(packBars).hasSize(1);
    List<String> packedRows = driver.findElements(By.cssSelector("tr.payload-row[data-place=pack]"))
        .stream().map(row -> row.getAttribute("data-attribute")).toList();
    List<WebElement> members = packBars.get(0).findElements(By.cssSelector(".segment"));
    assertThat(members).extracting(segment -> segment.getAttribute("data-attribute"))
        .containsExactlyInAnyOrderElementsOf(packedRows).contains("user");
    assertThat(members).allMatch(segment -> segment.getSize().getWidth() > 0
        && segment.getSize().getHeight() > 0);
    assertThat(driver.findElements(By.cssSelector("#payload-chart .bar.own"))).isNotEmpty();
    assertThat(driver.findElement(By.id("payload-layout")).getText())
        .contains("one hash", "the pack", "in the pack", "fields of their own");
    screenshot("4-payload");
  }

  @Test
  void signInOnOneNode_continuesSignedInOnTheOther() throws IOException {
    // Both nodes are on localhost: the browser sends the one session cookie to either port.
    String first = "http://localhost:" + node.port();
    String second = "http://localhost:" + otherNode.port();
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));

    driver.get(first + "/cart");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signin-form")));
    driver.findElement(By.id("username")).sendKeys("ada");
    driver.findElement(By.id("password")).sendKeys("password");
    driver.findElement(By.id("signin-submit")).click();
    // Spring Security's saved request brings the browser back to the cart it asked for
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-empty")));
    assertThat(driver.findElement(By.id("node")).getText()).isEqualTo("node :" + node.port());
    screenshot("5-signed-in-on-first");

    driver.get(second + "/");
    wait.until(ExpectedConditions.textToBe(By.id("signed-in-as"), "Ada"));
    assertThat(driver.findElement(By.id("node")).getText()).isEqualTo("node :" + otherNode.port());
    driver.findElements(By.cssSelector("button.add-to-cart")).get(0).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-table")));
    assertThat(driver.findElements(By.cssSelector("tr.cart-line"))).hasSize(1);
    screenshot("6-cart-on-second");

    driver.get(first + "/cart");
    wait.until(ExpectedConditions.textToBe(By.id("signed-in-as"), "Ada"));
    assertThat(driver.findElements(By.cssSelector("tr.cart-line"))).hasSize(1);

    driver.findElement(By.id("signout")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("nav-signin")));
    driver.get(second + "/cart");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signin-form")));
    screenshot("7-signed-out-everywhere");
  }

  @Test
  void flashMessageCheckoutAndLanguage_behindRoundRobinBalancer_eachStepOnTheOtherNode() throws IOException {
    RoundRobinBalancer balancer = balanceNewNodes();
    String shop = balancer.uri();
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));
    signInThroughForm(shop, "grace", wait);

    // Locale: SessionLocaleResolver keeps the choice in the session; the next page, on the other node,
    // is in German too.
    driver.get(shop + "/?lang=de");
    wait.until(ExpectedConditions.textToBe(By.id("catalog-title"), "Katalog"));
    String switchedOn = nodeOfPage();
    driver.get(shop + "/");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("catalog-title")));
    assertThat(driver.findElement(By.id("catalog-title")).getText()).isEqualTo("Katalog");
    assertThat(nodeOfPage()).isNotEqualTo(switchedOn);
    screenshot("8-catalog-in-german-on-the-other-node");

    // Flash attribute: the post that adds to the cart and the redirected page that shows the message run
    // on different nodes; the message is shown once.
    WebElement add = driver.findElements(By.cssSelector("button.add-to-cart")).get(0);
    String productId = add.getAttribute("data-product");
    add.click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("flash-added")));
    assertThat(driver.findElement(By.id("flash-added")).getText())
        .matches("1 × .+ in den Warenkorb gelegt\\.");
    assertThat(driver.findElement(By.cssSelector("tr.cart-line")).getAttribute("data-product")).isEqualTo(productId);
    assertThat(balancer.last("GET", "/cart").nodePort()).isNotEqualTo(balancer.last("POST", "/cart").nodePort());
    screenshot("9-flash-message-on-the-other-node");
    driver.get(shop + "/cart");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-table")));
    assertThat(driver.findElements(By.id("flash-added"))).isEmpty();

    // Session-scoped bean: the address step fills the checkout wizard, the review (on the other node)
    // reads it, and so does the address form when the user goes back (on the first node again).
    driver.get(shop + "/checkout?lang=en");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("checkout-form")));
    driver.findElement(By.id("recipient")).sendKeys("Grace Hopper");
    driver.findElement(By.id("address")).sendKeys("1 Harbour Road, Arlington");
    driver.findElement(By.id("delivery-express")).click();
    driver.findElement(By.id("checkout-next")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("review-recipient")));
    assertThat(driver.findElement(By.id("review-title")).getText()).isEqualTo("Checkout: review");
    assertThat(driver.findElement(By.id("review-recipient")).getText()).isEqualTo("Grace Hopper");
    assertThat(driver.findElement(By.id("review-address")).getText()).isEqualTo("1 Harbour Road, Arlington");
    assertThat(driver.findElement(By.id("review-delivery")).getAttribute("data-delivery")).isEqualTo("express");
    assertThat(balancer.last("GET", "/checkout/review").nodePort())
        .isNotEqualTo(balancer.last("POST", "/checkout").nodePort());
    screenshot("10-checkout-review-on-the-other-node");
    driver.findElement(By.id("review-change")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("checkout-form")));
    assertThat(driver.findElement(By.id("recipient")).getAttribute("value")).isEqualTo("Grace Hopper");
    assertThat(driver.findElement(By.id("delivery-express")).isSelected()).isTrue();
  }

  @Test
  void oidcSignIn_refusedCodeThenAccepted_landsOnSignInPageWithTheErrorThenSignsIn() throws Exception {
    try (TestIssuer issuer = TestIssuer.start()) {
      RoundRobinBalancer balancer = balanceNewNodes(
          issuer.clientProperties("{baseUrl}/login/oauth2/code/{registrationId}").toArray(String[]::new));
      String shop = balancer.uri();
      WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));

      // The provider refuses the code (expired or used): the callback fails on one node, and the other
      // serves the sign-in page with the provider's error read from the session.
      issuer.refuseCodes(true);
      driver.get(shop + "/signin");
      wait.until(ExpectedConditions.elementToBeClickable(By.id("signin-with-idp"))).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signin-idp-error")));
      assertThat(driver.getCurrentUrl()).isEqualTo(shop + "/signin?error");
      assertThat(driver.findElement(By.id("signin-idp-error")).getText())
          .isEqualTo("Signing in with the identity provider failed (invalid_grant). Try again, or sign in "
              + "with your name and password.");
      assertThat(driver.findElements(By.id("signed-in-as"))).isEmpty();
      assertThat(balancer.last("GET", "/signin?error").nodePort())
          .isNotEqualTo(balancer.last("GET", "/login/oauth2/code/idp").nodePort());
      screenshot("11-oidc-refused");

      // The next attempt succeeds: started on one node, completed on the other.
      issuer.refuseCodes(false);
      driver.findElement(By.id("signin-with-idp")).click();
      wait.until(ExpectedConditions.textToBe(By.id("signed-in-as"), "Ada"));
      assertThat(balancer.last("GET", "/login/oauth2/code/idp").nodePort())
          .isNotEqualTo(balancer.last("GET", "/oauth2/authorization/idp").nodePort());
      driver.get(shop + "/cart");
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-empty")));
      assertThat(driver.findElement(By.id("signed-in-as")).getText()).isEqualTo("Ada");
      screenshot("12-oidc-signed-in");
    }
  }

  /**
   * The sign-in flow with encryption keys: signed in through the form on one node, the cart filled
   * and read on the other, signed out everywhere; meanwhile Redis holds neither the session id nor the
   * user's name in clear, in a key, a field or a value.
   */
  @Test
  void signInCartAndSignOut_withEncryptionKeys_workAcrossNodesAndRedisHoldsNoClearIdOrName()
      throws IOException {
    byte[] secret = new byte[32];
    new java.security.SecureRandom().nextBytes(secret);
    RoundRobinBalancer balancer = balanceNewNodes("lazysession.encryption.keys=k1:"
        + java.util.Base64.getEncoder().encodeToString(secret));
    String shop = balancer.uri();
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));

    signInThroughForm(shop, "margaret", wait);
    assertThat(driver.findElement(By.id("signed-in-as")).getText()).isEqualTo("Margaret");
    driver.get(shop + "/");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("catalog-title")));
    driver.findElements(By.cssSelector("button.add-to-cart")).get(0).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-table")));
    assertThat(balancer.last("GET", "/cart").nodePort())
        .isNotEqualTo(balancer.last("POST", "/cart").nodePort());
    driver.get(shop + "/cart");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("cart-table")));
    assertThat(driver.findElements(By.cssSelector("tr.cart-line"))).hasSize(1);
    assertThat(driver.findElement(By.id("signed-in-as")).getText()).isEqualTo("Margaret");
    String id = new String(java.util.Base64.getDecoder().decode(
        driver.manage().getCookieNamed("SESSION").getValue()), StandardCharsets.UTF_8);

    String stored = redisDump();
    assertThat(stored).contains("lazysession:s:{").doesNotContain(id).doesNotContain("margaret");

    driver.findElement(By.id("signout")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("nav-signin")));
    driver.get(shop + "/cart");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signin-form")));
  }

  /** Every key of the test Redis, with its fields, values and members, as ISO-8859-1 text. */
  private String redisDump() {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.url());
    try (io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
      return RedisDump.of(connection.sync(), "*");
    } finally {
      client.shutdown();
    }
  }

  /**
   * Replaces the two nodes with two that also take {@code properties} and learn the browser's address
   * from the balancer's {@code X-Forwarded-*} headers, and puts a {@link RoundRobinBalancer} before them.
   */
  private RoundRobinBalancer balanceNewNodes(String... properties) throws IOException {
    node.close();
    otherNode.close();
    List<String> all = new java.util.ArrayList<>(List.of(properties));
    all.add("spring.data.redis.url=" + redis.url());
    all.add("server.forward-headers-strategy=framework");
    node = SampleNode.start(all.toArray(String[]::new));
    otherNode = SampleNode.start(all.toArray(String[]::new));
    balancer = RoundRobinBalancer.start(node, otherNode);
    return balancer;
  }

  @AfterEach
  void stopBalancer() {
    if (balancer != null) {
      balancer.close();
    }
  }

  private void signInThroughForm(String shop, String username, WebDriverWait wait) {
    driver.get(shop + "/signin");
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signin-form")));
    driver.findElement(By.id("username")).sendKeys(username);
    driver.findElement(By.id("password")).sendKeys("password");
    driver.findElement(By.id("signin-submit")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("signed-in-as")));
  }

  /** The node that served the page in the browser, from the footer. */
  private String nodeOfPage() {
    return driver.findElement(By.id("node")).getText();
  }

  private void screenshot(String name) throws IOException {
    File file = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(file.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static String setting(String name, String defaultValue) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? defaultValue : value;
  }
}
