import AppStoreModels
import AppStoreTestSigning
import Crypto
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperTestSupport
import SubscriptionEngine
import Synchronization
import Testing

@Suite("Retention Messaging: the Get Retention Message endpoint")
struct RealtimeRetentionTests {
    static let chain = "8300001"
    static let stayMessage = "0d6c1f4e-1b1d-4f3a-9a51-4b1e2f0a7c11"
    static let switchMessage = "0d6c1f4e-1b1d-4f3a-9a51-4b1e2f0a7c22"
    static let offerMessage = "0d6c1f4e-1b1d-4f3a-9a51-4b1e2f0a7c33"

    /// Alpha with a yearly plan beside the monthly one and, with `apple`, an In-App Purchase key.
    static func configure(_ configuration: inout ServerConfiguration, apple: AppleAccess?) throws {
        try apple?.configure(&configuration)
        let index = try #require(configuration.apps.firstIndex { $0.id == "alpha" })
        configuration.apps[index].appAppleId = 1234
        configuration.apps[index].products.append(
            CatalogProduct(productId: "pro.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "pro", entitlements: ["pro"]))
    }

    /// Runs `body` against a server whose alpha is ``configure(_:apple:)``d.
    static func run(
        _ backend: ServerBackend, apple: AppleAccess?, _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await ServerHarness.run(
            backend, configure: { try Self.configure(&$0, apple: apple) },
            appleClients: { configuration in try apple?.clients(configuration) ?? AppleClients() }, body)
    }

    /// Carol (or `customer`) subscribed to the monthly plan ten days before t0, renewing.
    @discardableResult
    static func subscribe(
        _ harness: ServerHarness, _ client: any TestClientProtocol, customer: String = "carol", chain: String = chain
    ) async throws -> JWSTransactionDecodedPayload {
        let start = Fixture.t0 - 10 * Fixture.day
        let tx = try SignedData.transaction(id: chain, original: chain, purchase: start, expires: start + 30 * Fixture.day, signed: start)
        let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
        let response = try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/purchases", key: Fixture.alphaKey, body: body)
        #expect(response.status == 200, "\(response.text)")
        return tx
    }

    static var document: [String: Any] {
        [
            "offerings": [
                ["id": "stay", "retention": ["kind": "message", "messageIdentifier": stayMessage]],
                [
                    "id": "switch-yearly",
                    "retention": [
                        "kind": "alternateProduct", "messageIdentifier": switchMessage, "productId": "pro.yearly", "billingPlanType": "MONTHLY",
                    ],
                ],
                ["id": "discount", "retention": ["kind": "promotionalOffer", "messageIdentifier": offerMessage, "offerIdentifier": "stay_50"]],
            ],
            "placements": [
                [
                    "id": "cancel", "kind": "retention", "defaultOffering": "stay",
                    "rules": [
                        ["id": "german", "offering": "switch-yearly", "locales": ["de"]],
                        ["id": "monthly-payers", "offering": "discount", "productIds": ["pro.monthly"]],
                    ],
                ]
            ],
        ]
    }

    static func saveDocument(_ client: any TestClientProtocol, _ document: [String: Any] = document) async throws {
        let put = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try OfferingsTests.body(document))
        #expect(put.status == 200, "\(put.text)")
    }

    /// Apple's request body, signed by `ca`.
    static func request(
        _ ca: TestCertificateAuthority, chain: String = chain, locale: String = "en-US", product: String = "pro.monthly", signed: Date,
        requestId: String = UUID().uuidString, appAppleId: Int64 = 1234, environment: AppStoreEnvironment = .sandbox
    ) throws -> String {
        let payload = DecodedRealtimeRequestBody(
            originalTransactionId: chain, appAppleId: appAppleId, productId: product, userLocale: locale, requestIdentifier: requestId,
            signedDate: signed, environment: environment)
        return "{\"signedPayload\":\"\(try ca.signRealtimeRequest(payload))\"}"
    }

    static func answer(_ client: any TestClientProtocol, _ body: String) async throws -> (status: Int, json: [String: Any], text: String) {
        let response = try await client.call(.post, "/v1/apps/alpha/retention/realtime", body: body)
        return (response.status, response.json, response.text)
    }

    @Test(
        "answers follow the retention placement: a rule by locale proposes the yearly plan billed monthly, a rule by product signs a promotional offer for the chain, the default shows a message; each answer is a customer event",
        arguments: ServerBackend.available)
    func answersFollowTheDocument(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await Self.run(backend, apple: apple) { harness, client in
            try await Self.subscribe(harness, client)
            try await Self.saveDocument(client)
            let now = Fixture.t0

            let german = try await Self.answer(client, try Self.request(harness.ca, locale: "de-DE", signed: now))
            #expect(german.status == 200, "\(german.text)")
            let alternate = try #require(german.json["alternateProduct"] as? [String: Any], "\(german.text)")
            #expect(alternate["productId"] as? String == "pro.yearly")
            #expect(alternate["billingPlanType"] as? String == "MONTHLY")
            #expect(alternate["messageIdentifier"] as? String == Self.switchMessage)
            #expect(german.json.count == 1)

            let english = try await Self.answer(client, try Self.request(harness.ca, locale: "en-US", signed: now))
            #expect(english.status == 200, "\(english.text)")
            let offer = try #require(english.json["promotionalOffer"] as? [String: Any], "\(english.text)")
            #expect(offer["messageIdentifier"] as? String == Self.offerMessage)
            let jws = try #require(offer["promotionalOfferSignatureV2"] as? String)
            let parts = jws.split(separator: ".")
            #expect(parts.count == 3)
            let claims = try OfferRoutesTests.decodeSegment(parts[1])
            #expect(claims["productId"] as? String == "pro.monthly")
            #expect(claims["offerIdentifier"] as? String == "stay_50")
            #expect(claims["transactionId"] as? String == Self.chain)
            #expect(claims["aud"] as? String == "promotional-offer")
            #expect(claims["bid"] as? String == Fixture.bundle)
            var signingInput = Data(parts[0].utf8)
            signingInput.append(UInt8(ascii: "."))
            signingInput.append(contentsOf: Data(parts[1].utf8))
            let signatureText = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            let padded = signatureText + String(repeating: "=", count: (4 - signatureText.count % 4) % 4)
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Data(base64Encoded: padded)))
            #expect(apple.key.publicKey.isValidSignature(signature, for: signingInput))

            // Another product than the rule names: the placement's default message.
            let yearly = try await Self.answer(client, try Self.request(harness.ca, product: "pro.yearly", signed: now))
            #expect(yearly.status == 200, "\(yearly.text)")
            #expect((yearly.json["message"] as? [String: Any])?["messageIdentifier"] as? String == Self.stayMessage)

            let events = try await client.call(.get, "/v1/apps/alpha/customers/carol/events", key: Fixture.alphaKey)
            let list = try #require(events.json["events"] as? [[String: Any]], "\(events.text)")
            let retention = list.filter { ($0["type"] as? String)?.hasPrefix("retention.") == true }
            #expect(
                Set(retention.compactMap { $0["type"] as? String })
                    == ["retention.alternate_product_shown", "retention.offer_shown", "retention.message_shown"], "\(events.text)")
            let switched = try #require(retention.first { $0["type"] as? String == "retention.alternate_product_shown" })
            let details = try #require(switched["details"] as? [String: Any], "\(switched)")
            #expect(details["alternateProductId"] as? String == "pro.yearly")
            #expect(details["billingPlanType"] as? String == "MONTHLY")
            #expect(details["placement"] as? String == "cancel")
            #expect(details["offeringId"] as? String == "switch-yearly")
            #expect(details["locale"] as? String == "de-DE")
            #expect((details["requestIdentifier"] as? String).flatMap(UUID.init(uuidString:)) != nil)
        }
    }

    @Test(
        "forged, stale, wrong-app, other-environment, unknown-subscription and replayed requests get the one refusal and record nothing",
        arguments: ServerBackend.available)
    func refusals(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await Self.run(backend, apple: apple) { harness, client in
            try await Self.subscribe(harness, client)
            try await Self.saveDocument(client)
            let now = Fixture.t0
            let forger = try TestCertificateAuthority.generate(
                notBefore: Date(timeIntervalSince1970: 1_577_836_800), notAfter: Date(timeIntervalSince1970: 2_208_988_800), name: "Forger")
            let replayed = try Self.request(harness.ca, signed: now)
            let first = try await Self.answer(client, replayed)
            #expect(first.status == 200, "\(first.text)")
            var tampered = try Self.request(harness.ca, signed: now)
            tampered = tampered.replacingOccurrences(of: "\"}", with: "A\"}")
            let refused: [(String, String)] = [
                ("forged", try Self.request(forger, signed: now)),
                ("tampered", tampered),
                ("stale", try Self.request(harness.ca, signed: now - 301)),
                ("from the future", try Self.request(harness.ca, signed: now + 301)),
                ("wrong app", try Self.request(harness.ca, signed: now, appAppleId: 999)),
                ("production to a sandbox app", try Self.request(harness.ca, signed: now, environment: .production)),
                ("unknown subscription", try Self.request(harness.ca, chain: "9999999", signed: now)),
                ("replayed", replayed),
                ("not JSON", "signedPayload"),
                ("no payload", "{}"),
            ]
            for (name, body) in refused {
                let answer = try await Self.answer(client, body)
                #expect(answer.status == 400, "\(name): \(answer.text)")
                #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "realtime_request_refused", "\(name): \(answer.text)")
            }
            // Beta shares the CA but not the subscription.
            let beta = try await client.call(.post, "/v1/apps/beta/retention/realtime", body: try Self.request(harness.ca, signed: now))
            #expect(beta.status == 400)
            let nowhere = try await client.call(.post, "/v1/apps/nowhere/retention/realtime", body: try Self.request(harness.ca, signed: now))
            #expect(nowhere.status == 400 && nowhere.text.contains("realtime_request_refused"))

            let events = try await client.call(.get, "/v1/apps/alpha/customers/carol/events", key: Fixture.alphaKey)
            let list = try #require(events.json["events"] as? [[String: Any]])
            #expect(list.filter { ($0["type"] as? String)?.hasPrefix("retention.") == true }.count == 1, "\(events.text)")
        }
    }

    @Test(
        "an offer the customer may not take is passed over: without a key to sign it, or in billing retry, the next candidate answers; with nothing left, Apple's default (an empty answer)",
        arguments: [ServerBackend.sqlite])
    func passedOver(_ backend: ServerBackend) async throws {
        try await Self.run(backend, apple: nil) { harness, client in
            try await Self.subscribe(harness, client)
            try await Self.saveDocument(client)
            let unsigned = try await Self.answer(client, try Self.request(harness.ca, signed: Fixture.t0))
            #expect((unsigned.json["message"] as? [String: Any])?["messageIdentifier"] as? String == Self.stayMessage, "\(unsigned.text)")

            var onlyOffer = Self.document
            onlyOffer["placements"] = [["id": "cancel", "kind": "retention", "defaultOffering": "discount"]]
            let put = try await client.call(
                .put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try OfferingsTests.body(onlyOffer, expectedVersion: 1))
            #expect(put.status == 200, "\(put.text)")
            let nothing = try await Self.answer(client, try Self.request(harness.ca, signed: Fixture.t0))
            #expect(nothing.status == 200 && nothing.json.isEmpty, "\(nothing.text)")
            let events = try await client.call(.get, "/v1/apps/alpha/customers/carol/events", key: Fixture.alphaKey)
            #expect(events.text.contains("retention.default_shown"), "\(events.text)")
        }
        let apple = AppleAccess()
        try await Self.run(backend, apple: apple) { harness, client in
            // In billing retry (the period ended, Apple is retrying): no promotional offer.
            let start = Fixture.t0 - 40 * Fixture.day
            let tx = try SignedData.transaction(
                id: Self.chain, original: Self.chain, purchase: start, expires: start + 30 * Fixture.day, signed: start)
            let purchase = try await client.call(
                .post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey,
                body: "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}")
            #expect(purchase.status == 200, "\(purchase.text)")
            let retry = try SignedData.notification(
                harness.ca, type: "DID_FAIL_TO_RENEW", signed: Fixture.t0 - 9 * Fixture.day, transaction: tx,
                renewal: try SignedData.renewal(original: Self.chain, autoRenew: true, billingRetry: true, signed: Fixture.t0 - 9 * Fixture.day))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: retry).status == 200)
            _ = try await harness.processor.drain()
            try await Self.saveDocument(client)
            let answer = try await Self.answer(client, try Self.request(harness.ca, signed: Fixture.t0))
            #expect((answer.json["message"] as? [String: Any])?["messageIdentifier"] as? String == Self.stayMessage, "\(answer.text)")
        }
    }

    /// Decodes each answer with Apple's `RealtimeResponseBody` (Python library) and prints, per
    /// answer, which option it holds and its fields as Apple's models read them.
    static let appleDecoder = #"""
        import json, sys
        from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
        from appstoreserverlibrary.models.RealtimeResponseBody import RealtimeResponseBody
        out = []
        for text in json.load(sys.stdin):
            body = _get_cattrs_converter(RealtimeResponseBody).structure(json.loads(text), RealtimeResponseBody)
            if body.message is not None:
                out.append({"kind": "message", "messageIdentifier": str(body.message.messageIdentifier)})
            elif body.alternateProduct is not None:
                a = body.alternateProduct
                out.append({"kind": "alternateProduct", "messageIdentifier": str(a.messageIdentifier), "productId": a.productId,
                            "billingPlanType": a.billingPlanType.value if a.billingPlanType else None})
            elif body.promotionalOffer is not None:
                p = body.promotionalOffer
                out.append({"kind": "promotionalOffer", "messageIdentifier": str(p.messageIdentifier),
                            "signed": p.promotionalOfferSignatureV2 is not None and p.promotionalOfferSignatureV2.count(".") == 2})
            else:
                out.append({"kind": "none"})
        print(json.dumps(out))
        """#

    @Test(
        "Apple's Python library decodes every answer with its RealtimeResponseBody: a plan switch, a signed offer, a message, nothing",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func appleDecodesTheAnswers() async throws {
        let apple = AppleAccess()
        let answers = try await Self.collectAnswers(apple: apple)
        let finished = try await ChildProcess.run(
            try InteropPython.require(), ["-I", "-c", Self.appleDecoder], input: try JSONEncoder().encode(answers))
        #expect(finished.status == 0, "\(finished.errorText)")
        let decoded = try #require(try JSONSerialization.jsonObject(with: finished.output) as? [[String: Any]], "\(finished.outputText)")
        #expect(decoded.count == 4)
        #expect(decoded[0]["kind"] as? String == "alternateProduct")
        #expect(decoded[0]["productId"] as? String == "pro.yearly" && decoded[0]["billingPlanType"] as? String == "MONTHLY")
        #expect(decoded[0]["messageIdentifier"] as? String == Self.switchMessage)
        #expect(decoded[1]["kind"] as? String == "promotionalOffer" && decoded[1]["signed"] as? Bool == true)
        #expect(decoded[1]["messageIdentifier"] as? String == Self.offerMessage)
        #expect(decoded[2]["kind"] as? String == "message" && decoded[2]["messageIdentifier"] as? String == Self.stayMessage)
        #expect(decoded[3]["kind"] as? String == "none")
    }

    /// The answer texts to a German request, an English one, one about the yearly plan, and one
    /// whose only candidate is an offer the customer may not take (another customer's lapsed chain).
    static func collectAnswers(apple: AppleAccess) async throws -> [String] {
        let collected = Mutex<[String]>([])
        try await Self.run(.sqlite, apple: apple) { harness, client in
            try await Self.subscribe(harness, client)
            try await Self.saveDocument(client)
            var texts: [String] = []
            for (locale, product) in [("de-DE", "pro.monthly"), ("en-US", "pro.monthly"), ("en-US", "pro.yearly")] {
                texts.append(try await Self.answer(client, try Self.request(harness.ca, locale: locale, product: product, signed: Fixture.t0)).text)
            }
            var onlyOffer = Self.document
            onlyOffer["placements"] = [["id": "cancel", "kind": "retention", "defaultOffering": "discount"]]
            let put = try await client.call(
                .put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try OfferingsTests.body(onlyOffer, expectedVersion: 1))
            #expect(put.status == 200)
            texts.append(try await Self.answer(client, try Self.request(harness.ca, product: "pro.lifetime", signed: Fixture.t0)).text)
            collected.withLock { $0 = texts }
        }
        return collected.withLock { $0 }
    }

    @Test(
        "a retention experiment measures saves: a customer still renewing at the end of the period current at their sheet is saved, one who cancelled is not, one whose period has not ended is pending",
        arguments: [ServerBackend.sqlite])
    func experimentSaves(_ backend: ServerBackend) async throws {
        try await Self.run(backend, apple: nil) { harness, client in
            let carol = try await Self.subscribe(harness, client, customer: "carol", chain: "8300001")
            let dave = try await Self.subscribe(harness, client, customer: "dave", chain: "8300002")
            let renewing = try SignedData.notification(
                harness.ca, type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", signed: Fixture.t0 - 60, transaction: dave,
                renewal: try SignedData.renewal(original: "8300002", autoRenew: true, signed: Fixture.t0 - 60))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: renewing).status == 200)
            var document = Self.document
            document["experiments"] = [
                [
                    "id": "stay-or-switch", "placement": "cancel", "audience": "everyone",
                    "variants": [["id": "A", "offering": "stay", "percent": 50], ["id": "B", "offering": "switch-yearly", "percent": 50]],
                ]
            ]
            try await Self.saveDocument(client, document)
            var variants: [String: String] = [:]
            for (customer, chain) in [("carol", "8300001"), ("dave", "8300002")] {
                let answer = try await Self.answer(client, try Self.request(harness.ca, chain: chain, signed: Fixture.t0))
                #expect(answer.status == 200, "\(answer.text)")
                let events = try await client.call(.get, "/v1/apps/alpha/customers/\(customer)/events", key: Fixture.alphaKey)
                let shown = try #require(
                    (events.json["events"] as? [[String: Any]])?.first { ($0["type"] as? String)?.hasPrefix("retention.") == true })
                variants[customer] = (shown["details"] as? [String: Any])?["variant"] as? String
            }
            #expect(variants.values.allSatisfy { ["A", "B"].contains($0) }, "\(variants)")
            func results() async throws -> [String: [String: Any]] {
                let response = try await client.call(.get, "/v1/apps/alpha/experiments/stay-or-switch/results", key: Fixture.alphaAdmin)
                #expect(response.status == 200, "\(response.text)")
                let rows = try #require(response.json["variants"] as? [[String: Any]], "\(response.text)")
                return Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["id"] as? String).map { ($0, row) } })
            }
            func retention(_ rows: [String: [String: Any]], _ key: String) -> Int {
                rows.values.compactMap { ($0["retention"] as? [String: Any])?[key] as? Int }.reduce(0, +)
            }
            let before = try await results()
            #expect(retention(before, "pending") == 2 && retention(before, "decided") == 0)

            // Carol cancels after the sheet; Dave does not. Both periods end at t0 + 20 days.
            let cancel = try SignedData.notification(
                harness.ca, type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", signed: Fixture.t0 + 60, transaction: carol,
                renewal: try SignedData.renewal(original: "8300001", autoRenew: false, signed: Fixture.t0 + 60))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: cancel).status == 200)
            _ = try await harness.processor.drain()
            harness.clock.set(Fixture.t0 + 21 * Fixture.day)
            let after = try await results()
            #expect(retention(after, "decided") == 2 && retention(after, "pending") == 0)
            #expect(retention(after, "saved") == 1)
            let (carolVariant, daveVariant) = (try #require(variants["carol"]), try #require(variants["dave"]))
            let carolRow = try #require(after[carolVariant]?["retention"] as? [String: Any])
            let daveRow = try #require(after[daveVariant]?["retention"] as? [String: Any])
            if variants["carol"] != variants["dave"] {
                #expect(carolRow["saved"] as? Int == 0 && carolRow["saveRate"] as? Double == 0)
                #expect(daveRow["saved"] as? Int == 1 && daveRow["saveRate"] as? Double == 1)
            }

            // The dashboard's Offerings page shows the saves beside each variant.
            try await DashboardTests.addUser(harness, "owner@example.com", .admin)
            let browser = DashboardBrowser(client)
            try await browser.signIn("owner@example.com", DashboardTests.password)
            let page = try await browser.get("/dashboard/apps/alpha/offerings")
            #expect(page.status == 200)
            #expect(
                page.text.contains("still renewing at the period&#39;s end") || page.text.contains("still renewing at the period's end"),
                "\(page.text)")
            #expect(page.text.contains(variants["carol"] == variants["dave"] ? "1 of 2 (50.0%)" : "1 of 1 (100.0%)"), "\(page.text)")
        }
    }

    @Test("the offerings document checks retention placements: answers present and well formed, one retention placement, experiments for everyone")
    func documentChecks() async throws {
        try await Self.run(.memory, apple: nil) { _, client in
            let bad: [String: Any] = [
                "offerings": [
                    ["id": "paywall", "packages": [["id": "m", "productId": "pro.monthly"]]],
                    ["id": "no-message", "retention": ["kind": "message"]],
                    ["id": "bad-plan", "retention": ["kind": "alternateProduct", "productId": "pro.yearly", "billingPlanType": "WEEKLY"]],
                    ["id": "no-offer", "retention": ["kind": "promotionalOffer"]],
                ],
                "placements": [
                    ["id": "cancel", "kind": "retention", "defaultOffering": "paywall"],
                    ["id": "cancel2", "kind": "retention", "defaultOffering": "no-message"],
                ],
                "experiments": [
                    [
                        "id": "e1", "placement": "cancel",
                        "variants": [["id": "A", "offering": "no-message", "percent": 50], ["id": "B", "offering": "bad-plan", "percent": 50]],
                    ]
                ],
            ]
            let put = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try OfferingsTests.body(bad))
            #expect(put.status == 422, "\(put.text)")
            for expected in [
                "offering no-message retention: a message needs its messageIdentifier",
                "offering bad-plan retention: billingPlanType must be BILLED_UPFRONT or MONTHLY",
                "offering no-offer retention: a promotionalOffer needs its offerIdentifier",
                "retention placement cancel: offering paywall has no retention answer",
                "at most one placement is a retention placement",
                "experiment e1: a retention placement's customers are subscribers, so its audience must be everyone",
            ] {
                #expect(put.text.contains(expected), "\(expected): \(put.text)")
            }
        }
    }
}
