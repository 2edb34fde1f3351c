import io.lazysession.redis.config.EnableLazyHttpSession;
import org.springframework.context.annotation.Configuration;

/**
 * A plain Spring configuration in the default package: it has no package of its own to allow, and
 * must start anyway.
 */
@Configuration(proxyBeanMethods = false)
@EnableLazyHttpSession(namespace = "default-package", redisUrl = "${test.redis.url}")
public class DefaultPackageSessionConfig {}
