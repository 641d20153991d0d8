//! Fixed vocabularies the corpus is drawn from, most frequent first (samplers are Zipf over the
//! list order). No entry contains the `lode` prefix of the planted terms, so planted counts stay
//! exact.

/// Account names seen in logins, web sessions and application logs.
pub const USERS: &[&str] = &[
    "root",
    "admin",
    "alice",
    "bob",
    "carol",
    "dave",
    "ubuntu",
    "deploy",
    "jenkins",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "oscar",
    "peggy",
    "trent",
    "victor",
    "walter",
    "postgres",
    "oracle",
    "git",
    "test",
    "guest",
    "user",
    "support",
    "www-data",
    "nagios",
    "ansible",
    "backup",
    "ftpuser",
    "mysql",
    "svc_payments",
    "svc_search",
    "svc_reports",
    "kate",
    "liam",
    "mia",
    "noah",
    "olivia",
    "paul",
    "quinn",
    "rachel",
    "sam",
    "tina",
    "uma",
    "vera",
    "will",
    "xena",
    "yusuf",
    "zoe",
    "hadoop",
    "elastic",
    "minecraft",
    "pi",
    "vagrant",
    "docker",
    "tomcat",
];

/// Services of the JSON application logs.
pub const SERVICES: &[&str] = &[
    "gateway",
    "checkout",
    "cart",
    "search",
    "catalog",
    "auth",
    "payments",
    "inventory",
    "shipping",
    "recommendations",
    "notifications",
    "accounts",
];

/// Messages of JSON application logs, per level (INFO, WARN, ERROR, DEBUG).
pub const JSON_MSGS: [&[&str]; 4] = [
    &[
        "request completed",
        "order placed",
        "cart updated",
        "user logged in",
        "payment authorized",
        "search served",
        "cache refreshed",
        "session created",
        "item reserved",
        "email queued",
        "token refreshed",
        "shipment scheduled",
    ],
    &[
        "slow upstream response",
        "retrying upstream call",
        "rate limit approaching",
        "cache miss storm",
        "deprecated api version used",
        "inventory below threshold",
    ],
    &[
        "upstream timeout",
        "database connection refused",
        "payment declined by processor",
        "unhandled exception in handler",
        "circuit breaker open",
    ],
    &[
        "cache hit",
        "feature flag evaluated",
        "query plan chosen",
        "connection reused",
        "serializer selected",
    ],
];

/// Browser and robot user agents.
pub const USER_AGENTS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.5.0",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "Apache-HttpClient/4.5.14 (Java/17.0.10)",
    "Mozilla/5.0 zgrab/0.x",
];

/// Referers; `-` is the absent referer.
pub const REFERERS: &[&str] = &[
    "-",
    "https://shop.example.com/",
    "https://www.google.com/",
    "https://shop.example.com/cart",
    "https://shop.example.com/search?q=shoes",
    "https://www.bing.com/",
    "https://t.co/",
    "https://duckduckgo.com/",
    "https://shop.example.com/account",
    "https://news.ycombinator.com/",
];

/// Product slugs and search words used to instantiate URLs.
pub const WORDS: &[&str] = &[
    "shoes",
    "jacket",
    "lamp",
    "kettle",
    "backpack",
    "socks",
    "headphones",
    "mug",
    "desk",
    "chair",
    "bike",
    "tent",
    "watch",
    "camera",
    "phone-case",
    "sunglasses",
    "scarf",
    "boots",
    "blender",
    "pillow",
];

/// URL templates with their weight and method; `{id}` is a number and `{w}` a word.
pub const URL_TEMPLATES: &[(&str, &str, f64)] = &[
    ("GET", "/", 20.0),
    ("GET", "/static/js/app.{hex}.js", 14.0),
    ("GET", "/static/css/main.{hex}.css", 12.0),
    ("GET", "/products/{w}-{id}", 12.0),
    ("GET", "/api/v1/products/{id}", 10.0),
    ("GET", "/images/{w}/{id}.jpg", 9.0),
    ("GET", "/favicon.ico", 6.0),
    ("GET", "/api/v2/search?q={w}&page={n}", 6.0),
    ("POST", "/api/v1/cart/items", 4.0),
    ("GET", "/category/{w}?page={n}", 4.0),
    ("GET", "/health", 3.0),
    ("POST", "/login", 2.5),
    ("GET", "/account/orders/{id}", 2.0),
    ("POST", "/api/v1/orders", 1.5),
    ("GET", "/robots.txt", 1.0),
    ("PUT", "/api/v1/cart/items/{id}", 0.8),
    ("DELETE", "/api/v1/cart/items/{id}", 0.4),
    ("HEAD", "/", 0.5),
    ("GET", "/wp-login.php", 0.3),
    ("GET", "/.env", 0.2),
    ("POST", "/xmlrpc.php", 0.1),
];

/// HTTP status codes with weights: 200 ≫ 304 > 404 > 500.
pub const STATUSES: &[(u16, f64)] = &[
    (200, 80.0),
    (304, 8.0),
    (404, 4.0),
    (302, 2.5),
    (301, 1.5),
    (201, 1.2),
    (500, 1.0),
    (403, 0.6),
    (401, 0.5),
    (503, 0.4),
    (400, 0.3),
];

/// log4j thread name prefixes (a number follows).
pub const THREADS: &[&str] = &[
    "http-nio-8080-exec-",
    "pool-2-thread-",
    "kafka-consumer-",
    "scheduling-",
    "ForkJoinPool.commonPool-worker-",
    "grpc-default-executor-",
];

/// Java loggers (also the classes that throw).
pub const LOGGERS: &[&str] = &[
    "com.acme.order.OrderController",
    "com.acme.payment.PaymentService",
    "com.acme.inventory.StockRepository",
    "com.acme.search.QueryExecutor",
    "com.acme.auth.TokenValidator",
    "com.acme.shipping.CarrierClient",
    "com.acme.cart.CartService",
    "com.acme.notify.EmailSender",
];

/// Exceptions (class, message) thrown at the top of a trace.
pub const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "java.lang.IllegalStateException",
        "Connection pool exhausted",
    ),
    (
        "java.lang.NullPointerException",
        "Cannot invoke \"com.acme.cart.Item.getSku()\" because \"item\" is null",
    ),
    (
        "org.springframework.dao.DataAccessResourceFailureException",
        "Unable to acquire JDBC Connection",
    ),
    (
        "java.util.concurrent.TimeoutException",
        "Request timed out after 30000 ms",
    ),
    (
        "com.acme.payment.GatewayException",
        "Processor returned HTTP 502",
    ),
    ("java.lang.IllegalArgumentException", "Invalid quantity: -1"),
    (
        "org.apache.kafka.common.errors.RecordTooLargeException",
        "The message is 1048712 bytes when serialized",
    ),
    (
        "com.fasterxml.jackson.databind.JsonMappingException",
        "Unexpected end-of-input in field name",
    ),
];

/// Root causes (class, message) of `Caused by:` blocks.
pub const CAUSES: &[(&str, &str)] = &[
    ("java.net.SocketTimeoutException", "Read timed out"),
    ("java.net.ConnectException", "Connection refused"),
    (
        "org.postgresql.util.PSQLException",
        "FATAL: too many connections for role \"app\"",
    ),
    ("java.io.IOException", "Broken pipe"),
    (
        "javax.net.ssl.SSLHandshakeException",
        "Remote host terminated the handshake",
    ),
];

/// Framework frames appended below application frames.
pub const FRAMEWORK_FRAMES: &[&str] = &[
    "org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)",
    "jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)",
    "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:166)",
    "org.apache.catalina.core.StandardWrapperValve.invoke(StandardWrapperValve.java:175)",
    "org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.doRun(NioEndpoint.java:1744)",
    "java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
    "java.base/java.lang.Thread.run(Thread.java:840)",
];

/// Methods of application frames.
pub const METHODS: &[&str] = &[
    "handle", "process", "execute", "lookup", "save", "validate", "submit", "call", "apply", "load",
];

/// Messages of the first line of a Java error event.
pub const JAVA_MSGS: &[&str] = &[
    "Request processing failed",
    "Unexpected error while handling order",
    "Payment authorization failed",
    "Failed to publish event",
    "Scheduled job aborted",
    "Could not refresh stock levels",
];
