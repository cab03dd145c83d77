import AppStoreModels
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Testing

/// The fixture's apps as RevenueCat projects: alpha and gamma are project `projab12` (alpha
/// holds the project's secret key and a public SDK key), beta is project `projbeta` with its own
/// secret key. Customers with subscriptions, purchases and attributes in alpha and gamma, one in
/// beta, and alpha's offerings document.
enum RevenueCatV2Fixture {
    static let project = "projab12"
    static let otherProject = "projbeta"
    static let secret = "sk_alpha_0123456789abcdef"
    static let betaSecret = "sk_beta_0123456789abcdef"
    static let sdkKey = "appl_alpha0123456789abcdef"
    /// alpha's and gamma's customers (alice is in both), in byte order.
    static let customers = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "user:42"]

    static func configure(_ configuration: inout ServerConfiguration) {
        for index in configuration.apps.indices {
            switch configuration.apps[index].id {
            case "alpha":
                configuration.apps[index].revenueCat = RevenueCatSettings(
                    sdkKeys: [sdkKey], secretKeys: [APIKeyConfiguration(key: secret, role: .app)], projectId: project, revenueCatAppId: "appalpha1")
            case "gamma":
                configuration.apps[index].revenueCat = RevenueCatSettings(projectId: project)
            default:
                configuration.apps[index].revenueCat = RevenueCatSettings(
                    secretKeys: [APIKeyConfiguration(key: betaSecret, role: .app)], projectId: otherProject)
            }
        }
    }

    /// Runs `body` against a fresh server of the fixture's apps on `backend`, `.router` or `.live`.
    static func run(
        _ backend: ServerBackend = .memory, _ testing: TestingSetup = .router,
        _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-rcv2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fixture, ca) = try Fixture.configuration(directory: directory)
        var configuration = fixture
        configure(&configuration)
        let settings = configuration
        try await withServerStore(backend) { store in
            let clock = TestClock(Fixture.t0)
            var logger = Logger(label: "test.revenuecat.v2")
            logger.logLevel = .warning
            for app in settings.apps {
                try await store.saveApp(AppRecord(id: app.id, bundleId: app.bundleId, createdAt: Fixture.t0 - 90 * Fixture.day))
            }
            var dependencies = ServerDependencies(store: store, clock: { clock.now }, logger: logger, runsInboxWorker: false)
            dependencies.runsDispatcher = false
            let processor = InboxProcessor(apps: try AppDirectory(configuration: settings), store: store, clock: { clock.now }, logger: logger)
            let harness = ServerHarness(configuration: settings, ca: ca, clock: clock, store: store, processor: processor)
            let app = try buildApplication(configuration: settings, dependencies: dependencies)
            try await app.test(testing) { client in try await body(harness, client) }
        }
    }

    /// Posts the fixture's purchases, attributes and offerings.
    static func seed(_ harness: ServerHarness, _ client: some TestClientProtocol) async throws {
        let t0 = Fixture.t0
        let day = Fixture.day
        func post(_ app: String, _ customer: String, _ key: String, _ transaction: JWSTransactionDecodedPayload) async throws {
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
            let path = "/v1/apps/\(app)/customers/\(customer.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? customer)/purchases"
            let answer = try await client.call(.post, path, key: key, body: body)
            #expect(answer.status == 200, "\(path): \(answer.text)")
        }
        func subscription(
            _ id: String, start: Date, days: Double = 30, trial: Bool = false, bundle: String = Fixture.bundle
        ) throws
            -> JWSTransactionDecodedPayload
        {
            try SignedData.transaction(
                id: id, original: id, purchase: start, expires: start + days * day, signed: start + 60, bundle: bundle, freeTrial: trial)
        }
        func lifetime(_ id: String, at date: Date) throws -> JWSTransactionDecodedPayload {
            try SignedData.transaction(id: id, original: id, product: "pro.lifetime", purchase: date, expires: nil, signed: date + 60)
        }
        try await post("alpha", "alice", Fixture.alphaKey, try subscription("a-1", start: t0 - 5 * day))
        try await post("alpha", "bob", Fixture.alphaKey, try lifetime("b-1", at: t0 - 20 * day))
        try await post("alpha", "carol", Fixture.alphaKey, try subscription("c-1", start: t0 - 60 * day))
        try await post("alpha", "dave", Fixture.alphaKey, try subscription("d-1", start: t0 - 2 * day))
        try await post("alpha", "dave", Fixture.alphaKey, try lifetime("d-2", at: t0 - day))
        try await post("alpha", "erin", Fixture.alphaKey, try subscription("e-1", start: t0 - day, days: 7, trial: true))
        try await post("alpha", "user:42", Fixture.alphaKey, try subscription("u-1", start: t0 - 3 * day))
        try await post("gamma", "alice", Fixture.gammaKey, try lifetime("ga-1", at: t0 - 3 * day))
        try await post("gamma", "gina", Fixture.gammaKey, try subscription("g-1", start: t0 - 4 * day))
        try await post("beta", "bert", Fixture.betaKey, try subscription("be-1", start: t0 - day, bundle: "com.example.beta"))
        try await harness.store.setCustomerAttributes(
            appId: "alpha", customerId: "frank",
            [
                CustomerAttribute(key: "$email", value: "frank@example.com", updatedAt: t0 - day),
                CustomerAttribute(key: "$displayName", value: "Frank", updatedAt: t0 - day),
                CustomerAttribute(key: "plan", value: "trial-seeker", updatedAt: t0 - day),
            ], at: t0 - day)
        let offerings = try OfferingsTests.body(OfferingsTests.document())
        let saved = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: offerings)
        #expect(saved.status == 200, "\(saved.text)")
    }

    static func path(_ suffix: String, project: String = project) -> String {
        "/revenuecat/v2/projects/\(project)/\(suffix)"
    }
}

@Suite("RevenueCat REST API v2: keys, pages and errors")
struct RevenueCatV2RouteTests {
    /// A v2 error body of `type`, every field the client's `Error` model reads.
    static func expectError(_ answer: (status: Int, json: [String: Any], text: String), _ status: Int, _ type: String, param: String? = nil) {
        #expect(answer.status == status, "\(answer.text)")
        #expect(answer.json["object"] as? String == "error", "\(answer.text)")
        #expect(answer.json["type"] as? String == type, "\(answer.text)")
        #expect(answer.json["message"] is String)
        #expect(answer.json["retryable"] as? Bool == false)
        #expect((answer.json["doc_url"] as? String)?.hasPrefix("https://errors.rev.cat/") == true)
        #expect(answer.json.keys.contains("param"))
        if let param { #expect(answer.json["param"] as? String == param, "\(answer.text)") }
    }

    @Test("a v2 secret key or a Storekeeper key of the project reads it; other keys, SDK keys and customer tokens do not")
    func keys() async throws {
        try await RevenueCatV2Fixture.run { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            let customer = RevenueCatV2Fixture.path("customers/alice")
            for key in [RevenueCatV2Fixture.secret, Fixture.alphaKey, Fixture.alphaAdmin, Fixture.gammaKey] {
                let answer = try await client.call(.get, customer, key: key)
                #expect(answer.status == 200, "\(answer.text)")
                #expect(answer.json["object"] as? String == "customer")
            }
            Self.expectError(try await client.call(.get, customer), 401, "authentication_error")
            Self.expectError(try await client.call(.get, customer, key: "sk_unknown_0123456789abcdef"), 401, "authentication_error")
            Self.expectError(try await client.call(.get, customer, key: RevenueCatV2Fixture.sdkKey), 401, "authentication_error")
            let minted = try await client.call(.post, "/v1/apps/alpha/customers/alice/tokens", key: Fixture.alphaKey, body: "{}")
            let token = try #require(minted.json["token"] as? String, "\(minted.text)")
            Self.expectError(try await client.call(.get, customer, key: token), 401, "authentication_error")
            // Another project's key, and a project no key opens, look alike: not found.
            let other = try await client.call(.get, customer, key: RevenueCatV2Fixture.betaSecret)
            Self.expectError(other, 404, "resource_missing", param: "project_id")
            Self.expectError(try await client.call(.get, customer, key: Fixture.betaKey), 404, "resource_missing", param: "project_id")
            let unknown = try await client.call(
                .get, RevenueCatV2Fixture.path("customers/alice", project: "projnone"), key: RevenueCatV2Fixture.secret)
            #expect(unknown.text == other.text)
            let beta = try await client.call(
                .get, RevenueCatV2Fixture.path("customers/bert", project: "projbeta"), key: RevenueCatV2Fixture.betaSecret)
            #expect(beta.status == 200)
            // A v2 key opens none of Storekeeper's own routes.
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: RevenueCatV2Fixture.secret).status == 401)
            #expect(try await client.call(.get, "/v1/apps/alpha/metrics", key: RevenueCatV2Fixture.secret).status == 401)
        }
    }

    @Test(
        "customers page by id across the project's apps: every customer once, in byte order, whatever the page size",
        arguments: ServerBackend.available)
    func customerPages(backend: ServerBackend) async throws {
        try await RevenueCatV2Fixture.run(backend) { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            for limit in [1, 2, 3, 7, 8, 1000] {
                var seen: [String] = []
                var next: String? = RevenueCatV2Fixture.path("customers?limit=\(limit)")
                var pages = 0
                while let path = next {
                    let answer = try await client.call(.get, path, key: RevenueCatV2Fixture.secret)
                    #expect(answer.status == 200, "\(answer.text)")
                    let items = try #require(answer.json["items"] as? [[String: Any]])
                    #expect(items.count <= limit)
                    seen += items.compactMap { $0["id"] as? String }
                    next = answer.json["next_page"] as? String
                    #expect(answer.json["url"] as? String == "/revenuecat/v2/projects/projab12/customers")
                    pages += 1
                    #expect(pages <= 20)
                }
                #expect(seen == RevenueCatV2Fixture.customers, "limit \(limit)")
                #expect(pages == max(1, (RevenueCatV2Fixture.customers.count + limit - 1) / limit))
            }
        }
    }

    @Test("pages of the largest limit reach every customer of an app with more than the store's largest page")
    func largestPages() async throws {
        try await RevenueCatV2Fixture.run { harness, client in
            let ids = (0..<1_203).map { String(format: "c%05d", $0) }
            for id in ids {
                try await harness.store.setCustomerAttributes(
                    appId: "alpha", customerId: id, [CustomerAttribute(key: "n", value: id, updatedAt: Fixture.t0)],
                    at: Fixture.t0)
            }
            var seen: [String] = []
            var next: String? = RevenueCatV2Fixture.path("customers?limit=1000")
            var pages = 0
            while let path = next, pages < 5 {
                let answer = try await client.call(.get, path, key: RevenueCatV2Fixture.secret)
                #expect(answer.status == 200)
                seen += (answer.json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                next = answer.json["next_page"] as? String
                pages += 1
            }
            #expect(pages == 2)
            #expect(seen == ids)
        }
    }

    @Test(
        "a customer is the union of its apps: alice's entitlements, subscriptions and purchases from alpha and gamma",
        arguments: ServerBackend.databases)
    func customerState(backend: ServerBackend) async throws {
        try await RevenueCatV2Fixture.run(backend) { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            let key = RevenueCatV2Fixture.secret
            let alice = try await client.call(.get, RevenueCatV2Fixture.path("customers/alice"), key: key)
            let active = try #require((alice.json["active_entitlements"] as? [String: Any])?["items"] as? [[String: Any]])
            #expect(active.map { $0["entitlement_id"] as? String } == ["entl_pro"])
            #expect(active.first?["expires_at"] is NSNull, "gamma's lifetime purchase never ends")
            let subscriptions = try await client.call(.get, RevenueCatV2Fixture.path("customers/alice/subscriptions"), key: key)
            let subscription = try #require((subscriptions.json["items"] as? [[String: Any]])?.first)
            #expect(subscription["id"] as? String == "sub_alpha:a-1")
            #expect(subscription["status"] as? String == "active")
            #expect(subscription["gives_access"] as? Bool == true)
            #expect(subscription["environment"] as? String == "sandbox")
            #expect((subscription["total_revenue_in_usd"] as? [String: Any])?["gross"] as? Double == 9.99)
            let purchases = try await client.call(.get, RevenueCatV2Fixture.path("customers/alice/purchases"), key: key)
            #expect((purchases.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["purch_gamma:ga-1"])
            let erin = try await client.call(.get, RevenueCatV2Fixture.path("subscriptions/sub_alpha:e-1"), key: key)
            #expect(erin.json["status"] as? String == "trialing")
            #expect(erin.json["customer_id"] as? String == "erin")
            let carol = try await client.call(.get, RevenueCatV2Fixture.path("customers/carol/active_entitlements"), key: key)
            #expect((carol.json["items"] as? [Any])?.isEmpty == true)
            let frank = try await client.call(.get, RevenueCatV2Fixture.path("customers/frank?expand=attributes"), key: key)
            let attributes = try #require((frank.json["attributes"] as? [String: Any])?["items"] as? [[String: Any]])
            #expect(attributes.map { $0["name"] as? String } == ["$displayName", "$email", "plan"])
            // An appUserId alias names its customer, whose aliases list it.
            try await harness.store.apply(
                Changeset(
                    appId: "alpha", at: Fixture.t0,
                    links: [CustomerLink(customerId: "dave", aliases: [CustomerAlias(kind: .appUserId, value: "dave-before-login")])]))
            let merged = try await client.call(.get, RevenueCatV2Fixture.path("customers/dave-before-login"), key: key)
            #expect(merged.json["id"] as? String == "dave", "\(merged.text)")
            let daves = try await client.call(.get, RevenueCatV2Fixture.path("customers/dave-before-login/aliases"), key: key)
            #expect((daves.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["dave", "dave-before-login"])
            let daveSubscriptions = try await client.call(.get, RevenueCatV2Fixture.path("customers/dave-before-login/subscriptions"), key: key)
            #expect((daveSubscriptions.json["items"] as? [[String: Any]])?.first?["customer_id"] as? String == "dave")
            let aliases = try await client.call(.get, RevenueCatV2Fixture.path("customers/user:42/aliases"), key: key)
            #expect((aliases.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["user:42"])
        }
    }

    @Test("bad limits, cursors, expansions and unknown ids are v2 errors, never a 500; write routes are a v2 405")
    func errors() async throws {
        try await RevenueCatV2Fixture.run { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            let key = RevenueCatV2Fixture.secret
            for limit in ["0", "1001", "abc", "-1", "2.5"] {
                Self.expectError(
                    try await client.call(.get, RevenueCatV2Fixture.path("customers?limit=\(limit)"), key: key), 400, "parameter_error",
                    param: "limit")
                Self.expectError(
                    try await client.call(.get, RevenueCatV2Fixture.path("products?limit=\(limit)"), key: key), 400, "parameter_error", param: "limit"
                )
            }
            for path in ["products", "entitlements", "offerings", "customers/alice/subscriptions", "customers/frank/attributes"] {
                Self.expectError(
                    try await client.call(.get, RevenueCatV2Fixture.path("\(path)?starting_after=nothing-here"), key: key), 400, "parameter_error",
                    param: "starting_after")
            }
            let tooLong = String(repeating: "x", count: 600)
            Self.expectError(
                try await client.call(.get, RevenueCatV2Fixture.path("customers?starting_after=\(tooLong)"), key: key), 400, "parameter_error",
                param: "starting_after")
            Self.expectError(
                try await client.call(.get, RevenueCatV2Fixture.path("offerings?expand=everything"), key: key), 400, "parameter_error",
                param: "expand")
            Self.expectError(
                try await client.call(.get, RevenueCatV2Fixture.path("customers/alice/purchases?environment=staging"), key: key), 400,
                "parameter_error",
                param: "environment")
            let missing: [(String, String)] = [
                ("customers/nobody", "customer_id"), ("customers/nobody/subscriptions", "customer_id"), ("customers/nobody/aliases", "customer_id"),
                ("products/prod_alpha:nope", "product_id"), ("products/prod_nowhere:pro.monthly", "product_id"),
                ("products/pro.monthly", "product_id"),
                ("entitlements/entl_nope", "entitlement_id"), ("entitlements/pro", "entitlement_id"),
                ("offerings/ofrng_alpha:nope", "offering_id"), ("offerings/ofrng_beta:default", "offering_id"),
                ("packages/pkge_alpha:default:nope", "package_id"), ("packages/pkge_alpha:default", "package_id"),
                ("subscriptions/sub_alpha:nope", "subscription_id"), ("subscriptions/sub_beta:be-1", "subscription_id"),
                ("purchases/purch_alpha:nope", "purchase_id"), ("purchases/purch_alpha:a-1", "purchase_id"), ("apps/nope", "app_id"),
            ]
            for (path, param) in missing {
                Self.expectError(try await client.call(.get, RevenueCatV2Fixture.path(path), key: key), 404, "resource_missing", param: param)
            }
            Self.expectError(try await client.call(.get, RevenueCatV2Fixture.path("customers/a%01b"), key: key), 400, "parameter_error")
            Self.expectError(try await client.call(.get, RevenueCatV2Fixture.path("customers/a%2Fb"), key: key), 404, "resource_missing")
            Self.expectError(try await client.call(.get, RevenueCatV2Fixture.path("products/prod_alpha%3A"), key: key), 404, "resource_missing")
            Self.expectError(try await client.call(.get, "/revenuecat/v2/nothing/here", key: key), 404, "resource_missing")
            Self.expectError(try await client.call(.get, RevenueCatV2Fixture.path("customers/alice/nothing"), key: key), 404, "resource_missing")
            for (method, path) in [
                (HTTPRequest.Method.post, "customers"), (.delete, "customers/alice"), (.post, "offerings"),
                (.post, "subscriptions/sub_alpha:a-1/actions/refund"),
            ] {
                Self.expectError(try await client.call(method, RevenueCatV2Fixture.path(path), key: key, body: "{}"), 405, "invalid_request")
            }
        }
    }

    @Test("catalog lists page without gaps or repeats, and their ids read back one by one")
    func catalogPages() async throws {
        try await RevenueCatV2Fixture.run { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            let key = RevenueCatV2Fixture.secret
            for (list, expected) in [
                ("products", ["prod_alpha:pro.monthly", "prod_alpha:pro.lifetime", "prod_gamma:pro.monthly", "prod_gamma:pro.lifetime"]),
                ("offerings", ["ofrng_alpha:default", "ofrng_alpha:annual-first", "ofrng_alpha:lifetime-only"]),
                ("entitlements", ["entl_pro"]),
                ("offerings/ofrng_alpha:annual-first/packages", ["pkge_alpha:annual-first:lifetime", "pkge_alpha:annual-first:monthly"]),
            ] {
                var seen: [String] = []
                var next: String? = RevenueCatV2Fixture.path("\(list)?limit=1")
                while let path = next {
                    let answer = try await client.call(.get, path, key: key)
                    #expect(answer.status == 200, "\(answer.text)")
                    seen += (answer.json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    next = answer.json["next_page"] as? String
                }
                #expect(seen == expected)
                for id in seen where !list.contains("/") {
                    let single = try await client.call(.get, RevenueCatV2Fixture.path("\(list)/\(id)"), key: key)
                    #expect(single.json["id"] as? String == id, "\(single.text)")
                }
            }
        }
    }

    @Test("the overview metrics are Storekeeper's own snapshot figures, summed over the project's apps")
    func overviewMetrics() async throws {
        try await RevenueCatV2Fixture.run { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            var expected: [String: Double] = [:]
            for (app, key) in [("alpha", Fixture.alphaKey), ("gamma", Fixture.gammaKey)] {
                let snapshot = try await client.call(.get, "/v1/apps/\(app)/metrics?environment=Sandbox", key: key)
                #expect(snapshot.status == 200, "\(snapshot.text)")
                for (name, field) in [("active_subscriptions", "activeSubscriptions"), ("active_trials", "activeTrials"), ("mrr", "mrr")] {
                    expected[name, default: 0] += (snapshot.json[field] as? NSNumber)?.doubleValue ?? -1
                }
            }
            let overview = try await client.call(
                .get, RevenueCatV2Fixture.path("metrics/overview?environment=sandbox"), key: RevenueCatV2Fixture.secret)
            #expect(overview.json["object"] as? String == "overview_metrics")
            let metrics = try #require(overview.json["metrics"] as? [[String: Any]])
            let values = Dictionary(
                uniqueKeysWithValues: metrics.compactMap { metric in
                    (metric["id"] as? String).map { ($0, (metric["value"] as? NSNumber)?.doubleValue ?? -1) }
                })
            #expect(values["active_subscriptions"] == expected["active_subscriptions"])
            #expect(values["active_trials"] == expected["active_trials"])
            #expect(values["mrr"] == expected["mrr"])
            #expect((values["active_subscriptions"] ?? 0) >= 4)
            #expect((values["revenue"] ?? 0) > 0)
            #expect(metrics.allSatisfy { ["P0D", "P28D"].contains($0["period"] as? String ?? "") && $0["object"] as? String == "overview_metric" })
            let production = try await client.call(.get, RevenueCatV2Fixture.path("metrics/overview"), key: RevenueCatV2Fixture.secret)
            #expect((production.json["metrics"] as? [[String: Any]])?.allSatisfy { ($0["value"] as? NSNumber)?.doubleValue == 0 } == true)
        }
    }
}
