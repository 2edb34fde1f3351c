import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application in the default package (no package declaration), as quick starts and
 * single-file demos have: lazysession must start without an application package to allow.
 */
@SpringBootApplication(scanBasePackages = "none.scanned")
public class DefaultPackageShopApplication {}
