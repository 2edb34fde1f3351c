package io.lazysession.it.kotlinshop

import org.springframework.boot.autoconfigure.SpringBootApplication

/**
 * A Kotlin Spring Boot application as a team writes one; its session values are in
 * [KotlinSessionValues]. No lazysession setting: the store's defaults decide what is stored.
 */
@SpringBootApplication
class KotlinShopApplication
