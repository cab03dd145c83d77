// swift-tools-version: 6.1
// Storekeeper: a self-hosted subscription backend for apps that sell through the App Store.
// The targets follow the data's path; docs/ARCHITECTURE.md draws them.
import PackageDescription

let package = Package(
    name: "Storekeeper",
    platforms: [.macOS(.v15), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "AppStoreModels", targets: ["AppStoreModels"]),
        .library(name: "AppStoreJOSE", targets: ["AppStoreJOSE"]),
        .library(name: "AppStoreVerification", targets: ["AppStoreVerification"]),
        .library(name: "AppStoreTestSigning", targets: ["AppStoreTestSigning"]),
        .library(name: "SubscriptionEngine", targets: ["SubscriptionEngine"]),
        .library(name: "SubscriptionAnalytics", targets: ["SubscriptionAnalytics"]),
        .library(name: "StorekeeperKit", targets: ["StorekeeperKit"]),
        // The server as a library, for the fuzz targets in Fuzz/.
        .library(
            name: "StorekeeperServer",
            targets: [
                "StorekeeperServer", "StorekeeperDashboard", "StorekeeperHTTP", "StorekeeperJobs", "StorekeeperEventsOut", "StorekeeperInbox",
                "StorekeeperApps", "StorekeeperStore",
            ]),
        .executable(name: "storekeeper", targets: ["storekeeper"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Already in the graph through AsyncHTTPClient: its zlib inflater reads gzip exports.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        // Traces (docs/observability.md): libraries use the Tracing API; the server exports with
        // swift-otel over OTLP/HTTP only (the gRPC exporter's packages are not built).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // Everything Apple sends or accepts, as Codable values. Foundation only. Also home to the
        // seeded generator (SplitMix64) the simulator, the analytics and the tests share.
        .target(name: "AppStoreModels"),
        // Compact JWS: the one base64url codec, the header, parsing, ES256 signing and checking.
        .target(name: "AppStoreJOSE", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Offline verification of Apple's signed data: JWS with x5c chains, PKCS#7 receipts.
        .target(
            name: "AppStoreVerification",
            dependencies: [
                "AppStoreModels",
                "AppStoreJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // A certificate authority shaped like Apple's, and signers for test data.
        .target(
            name: "AppStoreTestSigning",
            dependencies: [
                "AppStoreModels",
                "AppStoreJOSE",
                "AppStoreVerification",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // Apple's subscription semantics: facts and an instant in, state out. No I/O.
        .target(name: "SubscriptionEngine", dependencies: ["AppStoreModels"]),
        // The engine's state as a report (`storekeeper status`, the engine's scenario files):
        // JSON input of facts, a status report per instant.
        .target(name: "SubscriptionReport", dependencies: ["AppStoreModels", "SubscriptionEngine"]),
        // The business measured from the ledger's facts with the engine: snapshot and flow
        // metrics, money in a reporting currency. No I/O, no clock.
        .target(name: "SubscriptionAnalytics", dependencies: ["AppStoreModels", "SubscriptionEngine"]),
        // Apple's App Store Server API and verifyReceipt clients: tokens, retries, rate budgets,
        // offer signatures.
        .target(
            name: "AppStoreServerAPI",
            dependencies: [
                "AppStoreModels",
                "AppStoreJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // A scripted fake of the App Store Server API transport, for tests of its users.
        .target(name: "AppStoreServerAPITesting", dependencies: ["AppStoreServerAPI", "AppStoreModels"]),
        // The one SQLite setting Swift cannot reach (a variadic C call), for the store's
        // connections.
        .target(name: "CSQLiteConfig"),
        // Persistence behind protocols: apps, customers, ledger, inbox, events, jobs, audit; one
        // SQL implementation over SQLite (the default) and PostgreSQL, with migrations.
        .target(
            name: "StorekeeperStore",
            dependencies: [
                "AppStoreJOSE",
                "CSQLiteConfig",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "SubscriptionEngine",
                "SubscriptionAnalytics",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The version, commit and date a release build stamps (Scripts/release.sh), in C so that
        // stamping recompiles one file, not a Swift module.
        .target(name: "CBuildStamp"),
        // The configured apps: the configuration, each app's keys and runtime, the app directory, the server's metrics.
        .target(
            name: "StorekeeperApps",
            dependencies: [
                "CBuildStamp",
                "AppStoreJOSE",
                "AppStoreModels",
                "AppStoreServerAPI",
                "AppStoreVerification",
                "StorekeeperStore",
                "SubscriptionAnalytics",
                "SubscriptionEngine",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The way in: the notification door's admission, the inbox and its decision, and the one intake of facts (ledger, state, customer events, figures).
        .target(
            name: "StorekeeperInbox",
            dependencies: [
                "AppStoreJOSE",
                "AppStoreModels",
                "AppStoreVerification",
                "StorekeeperApps",
                "StorekeeperStore",
                "SubscriptionAnalytics",
                "SubscriptionEngine",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The way out: the outbox dispatcher and its vendors (webhooks, Slack, Telegram, Amplitude, Mixpanel), and the problems it opens.
        .target(
            name: "StorekeeperEventsOut",
            dependencies: [
                "StorekeeperApps",
                "StorekeeperInbox",
                "StorekeeperStore",
                "SubscriptionAnalytics",
                "SubscriptionEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The background work: the job runner and scheduler (reconciliation, sweeps, consumption answers), Apple's clients, and the work a server runs.
        .target(
            name: "StorekeeperJobs",
            dependencies: [
                "AppStoreModels",
                "AppStoreServerAPI",
                "AppStoreVerification",
                "StorekeeperApps",
                "StorekeeperEventsOut",
                "StorekeeperInbox",
                "StorekeeperStore",
                "SubscriptionEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The HTTP API: routes and their handlers, authentication and tenant isolation, offerings
        // and experiments, signed offline state, projects, the figures' reads; the OpenAPI document.
        .target(
            name: "StorekeeperHTTP",
            dependencies: [
                "AppStoreJOSE",
                "AppStoreModels",
                "AppStoreServerAPI",
                "AppStoreVerification",
                "StorekeeperApps",
                "StorekeeperEventsOut",
                "StorekeeperInbox",
                "StorekeeperJobs",
                "StorekeeperStore",
                "SubscriptionAnalytics",
                "SubscriptionEngine",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources/openapi.json")]
        ),
        // The dashboard: server-rendered pages over the HTTP API's reads, sessions, support actions.
        .target(
            name: "StorekeeperDashboard",
            dependencies: [
                "AppStoreJOSE",
                "AppStoreModels",
                "StorekeeperApps",
                "StorekeeperHTTP",
                "StorekeeperStore",
                "SubscriptionAnalytics",
                "SubscriptionEngine",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Resources/Dashboard")]
        ),
        // The composition root: `buildServer` puts the rooms together as one Hummingbird
        // application with its services; TLS and connection limits.
        .target(
            name: "StorekeeperServer",
            dependencies: [
                "StorekeeperApps",
                "StorekeeperDashboard",
                "StorekeeperHTTP",
                "StorekeeperInbox",
                "StorekeeperJobs",
                "StorekeeperStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // A local App Store: a simulated population on a controllable clock, signed data, Apple's
        // endpoints on loopback and notification delivery with Apple's retries and losses.
        .target(
            name: "AppStoreSimulator",
            dependencies: [
                "AppStoreModels",
                "AppStoreJOSE",
                "AppStoreVerification",
                "AppStoreTestSigning",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The client SDK for apps: a platform-independent core (server calls, purchase delivery,
        // the signed offline cache, certificate pins) and a thin StoreKit 2 adapter.
        .target(
            name: "StorekeeperKit",
            dependencies: [
                "AppStoreJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
            ]
        ),
        // The command-line tool's commands, as a library so tests can call them.
        .target(
            name: "StorekeeperCLI",
            dependencies: [
                "SubscriptionReport",
                "AppStoreJOSE",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                "AppStoreModels",
                "AppStoreVerification",
                "AppStoreTestSigning",
                "SubscriptionEngine",
                "SubscriptionAnalytics",
                "AppStoreServerAPI",
                "StorekeeperStore",
                "StorekeeperServer",
                "StorekeeperApps",
                "StorekeeperInbox",
                "StorekeeperEventsOut",
                "StorekeeperJobs",
                "StorekeeperHTTP",
                "StorekeeperDashboard",
                "AppStoreSimulator",
                "StorekeeperKit",
                .product(name: "Yams", package: "Yams"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .executableTarget(name: "storekeeper", dependencies: ["StorekeeperCLI"]),

        .testTarget(
            name: "AppStoreModelsTests",
            dependencies: ["AppStoreModels"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppStoreVerificationTests",
            dependencies: [
                "AppStoreJOSE",
                "AppStoreModels",
                "AppStoreVerification",
                "AppStoreTestSigning",
                "StorekeeperTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppStoreTestSigningTests",
            dependencies: [
                "AppStoreModels",
                "AppStoreTestSigning",
                "AppStoreJOSE",
                "AppStoreVerification",
                "StorekeeperTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "StorekeeperStoreTests",
            dependencies: [
                "StorekeeperStore", "CSQLiteConfig", "AppStoreModels", "SubscriptionEngine", "SubscriptionAnalytics",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
            ]
        ),
        .testTarget(
            name: "StorekeeperServerTests",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                "StorekeeperServer",
                "StorekeeperApps",
                "StorekeeperInbox",
                "StorekeeperEventsOut",
                "StorekeeperJobs",
                "StorekeeperHTTP",
                "StorekeeperDashboard",
                "StorekeeperStore",
                "AppStoreServerAPI",
                "AppStoreServerAPITesting",
                .product(name: "Crypto", package: "swift-crypto"),
                "AppStoreTestSigning",
                "AppStoreVerification",
                "AppStoreModels",
                "SubscriptionEngine",
                "SubscriptionAnalytics",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "storekeeper",
                "AppStoreSimulator",
                "StorekeeperTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SubscriptionAnalyticsTests",
            dependencies: ["AppStoreModels", "SubscriptionAnalytics", "SubscriptionEngine"]
        ),
        .testTarget(
            name: "SubscriptionEngineTests",
            dependencies: [
                "SubscriptionEngine",
                "SubscriptionReport",
                "AppStoreModels",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AppStoreSimulatorTests",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                "AppStoreSimulator",
                "AppStoreJOSE",
                "AppStoreModels",
                "AppStoreVerification",
                "AppStoreTestSigning",
                "AppStoreServerAPI",
                "StorekeeperTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "AppStoreServerAPI",
                "AppStoreServerAPITesting",
                "AppStoreModels",
                "StorekeeperTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "StorekeeperCLITests",
            dependencies: [
                "storekeeper", "StorekeeperCLI", "AppStoreServerAPI", "AppStoreTestSigning", "StorekeeperTestSupport", "SubscriptionEngine",
                "SubscriptionAnalytics", "StorekeeperStore", "StorekeeperKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),

        .testTarget(
            name: "StorekeeperKitTests",
            dependencies: [
                "StorekeeperKit", "StorekeeperServer", "StorekeeperApps", "StorekeeperInbox", "StorekeeperEventsOut", "StorekeeperJobs",
                "StorekeeperHTTP", "StorekeeperDashboard",
                "StorekeeperStore", "AppStoreJOSE", "AppStoreTestSigning", "AppStoreModels",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The StoreKit 2 adapter's source (a link to Sources/StorekeeperKit/StoreKit) compiled on
        // Linux against StoreKit's declarations from Apple's documentation (Tests/StoreKit, a
        // stand-in module).
        .testTarget(
            name: "StoreKitAdapterCheck",
            dependencies: ["StorekeeperKit", .target(name: "StoreKit", condition: .when(platforms: [.linux]))],
            swiftSettings: [.define("STOREKEEPER_STOREKIT_CHECK")]
        ),
        .target(name: "StoreKit", path: "Tests/StoreKit"),
        // Helpers shared by the test targets (Apple's Python reference verifier, subprocesses).
        .target(name: "StorekeeperTestSupport", path: "Tests/StorekeeperTestSupport"),
    ],
    swiftLanguageModes: [.v6]
)
