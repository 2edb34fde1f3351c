package io.lazysession.sample;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A minimal OpenID Connect provider in this JVM, for the sample's OIDC login: the authorization
 * endpoint signs in {@code ada} at once and redirects back with a code; the token endpoint trades the
 * code for an RS256-signed ID token carrying the request's nonce; the JWK set endpoint publishes the
 * key. No discovery and no user-info endpoint: the sample is configured with the endpoints. Only for
 * tests: no client authentication check, codes never expire unless {@link #refuseCodes} says they have.
 * Thread-safe.
 */
final class TestIssuer implements AutoCloseable {
  static final String CLIENT_ID = "shop";

  private final HttpServer server;
  private final RSAKey key;
  private final Map<String, String> nonceByCode = new ConcurrentHashMap<>();
  private volatile boolean refuseCodes;

  private TestIssuer(HttpServer server, RSAKey key) {
    this.server = server;
    this.key = key;
  }

  static TestIssuer start() throws IOException, JOSEException {
    HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    TestIssuer issuer = new TestIssuer(server, new RSAKeyGenerator(2048).keyID("test-key").generate());
    server.createContext("/authorize", issuer::authorize);
    server.createContext("/token", issuer::token);
    server.createContext("/jwks", issuer::jwks);
    server.start();
    return issuer;
  }

  String uri() {
    return "http://localhost:" + server.getAddress().getPort();
  }

  /** The sample's properties that register this provider as {@code idp}. */
  List<String> clientProperties(String redirectUri) {
    String registration = "spring.security.oauth2.client.registration.idp.";
    String provider = "spring.security.oauth2.client.provider.idp.";
    return List.of(
        registration + "client-id=" + CLIENT_ID,
        registration + "client-secret=secret",
        registration + "client-name=Test IdP",
        registration + "authorization-grant-type=authorization_code",
        registration + "scope=openid,profile,email",
        registration + "redirect-uri=" + redirectUri,
        provider + "authorization-uri=" + uri() + "/authorize",
        provider + "token-uri=" + uri() + "/token",
        provider + "jwk-set-uri=" + uri() + "/jwks",
        provider + "user-name-attribute=preferred_username");
  }

  /**
   * While {@code refuse} is true, the token endpoint answers every code with {@code 400 invalid_grant},
   * as a provider does for an expired or already used code.
   */
  void refuseCodes(boolean refuse) {
    refuseCodes = refuse;
  }

  private void authorize(HttpExchange exchange) throws IOException {
    Map<String, String> query = form(exchange.getRequestURI().getRawQuery());
    String code = UUID.randomUUID().toString();
    nonceByCode.put(code, query.getOrDefault("nonce", ""));
    String location = query.get("redirect_uri") + "?code=" + code + "&state="
        + URLEncoder.encode(query.get("state"), StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Location", location);
    exchange.sendResponseHeaders(302, -1);
    exchange.close();
  }

  private void token(HttpExchange exchange) throws IOException {
    Map<String, String> body = form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    String nonce = nonceByCode.remove(body.getOrDefault("code", ""));
    if (nonce == null || refuseCodes) {
      respond(exchange, 400, Map.of("error", "invalid_grant",
          "error_description", "The authorization code has expired or was already used"));
      return;
    }
    Instant now = Instant.now();
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .issuer(uri())
        .subject("248289761001")
        .audience(CLIENT_ID)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(3600)))
        .claim("nonce", nonce)
        .claim("preferred_username", "ada")
        .claim("name", "Ada Lovelace")
        .claim("email", "ada@example.com")
        .build();
    SignedJWT idToken = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
        claims);
    try {
      idToken.sign(new RSASSASigner(key));
    } catch (JOSEException e) {
      throw new IOException(e);
    }
    Map<String, Object> response = new LinkedHashMap<>();
    response.put("access_token", UUID.randomUUID().toString());
    response.put("token_type", "Bearer");
    response.put("expires_in", 3600);
    response.put("scope", "openid profile email");
    response.put("id_token", idToken.serialize());
    respond(exchange, 200, response);
  }

  private void jwks(HttpExchange exchange) throws IOException {
    respond(exchange, 200, new JWKSet(key.toPublicJWK()).toJSONObject());
  }

  private static void respond(HttpExchange exchange, int status, Map<String, Object> json) throws IOException {
    byte[] bytes = JSONObjectUtils.toJSONString(json).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private static Map<String, String> form(String encoded) {
    Map<String, String> values = new LinkedHashMap<>();
    if (encoded == null || encoded.isEmpty()) {
      return values;
    }
    for (String pair : encoded.split("&")) {
      int eq = pair.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      values.put(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return values;
  }

  @Override
  public void close() {
    server.stop(0);
  }

  URI base() {
    return URI.create(uri());
  }
}
