import Foundation
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperServer
import Testing

@Suite("Offerings, experiments and projects")
struct OfferingsTests {
    static func document(usOffering: String = "annual-first", experiment: [String: Any]? = nil) -> [String: Any] {
        var document: [String: Any] = [
            "offerings": [
                ["id": "default", "packages": [["id": "monthly", "productId": "pro.monthly"]], "metadata": ["title": "Go Pro", "layout": 2]],
                [
                    "id": "annual-first",
                    "packages": [["id": "lifetime", "productId": "pro.lifetime"], ["id": "monthly", "productId": "pro.monthly"]],
                ],
                ["id": "lifetime-only", "packages": [["id": "lifetime", "productId": "pro.lifetime"]]],
            ],
            "placements": [
                [
                    "id": "onboarding", "defaultOffering": "default",
                    "rules": [
                        ["id": "us", "offering": usOffering, "storefronts": ["USA"]],
                        ["id": "new-app", "offering": "lifetime-only", "minimumAppVersion": "3.0", "customerStates": ["new"]],
                    ],
                ]
            ],
        ]
        if let experiment { document["experiments"] = [experiment] }
        return document
    }

    static func body(_ document: [String: Any], expectedVersion: Int? = nil) throws -> String {
        var object: [String: Any] = ["document": document]
        object["expectedVersion"] = expectedVersion
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test("a targeting change reaches the next fetch with no restart; restoring the previous version undoes it; every change is audited")
    func targeting() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            let put = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(Self.document()))
            #expect(put.status == 200 && put.json["version"] as? Int == 1, "\(put.text)")
            func fetch(_ query: String, customer: String = "dave") async throws -> [String: Any] {
                let answer = try await client.call(
                    .get, "/v1/apps/alpha/customers/\(customer)/offerings?placement=onboarding&\(query)", key: Fixture.alphaKey)
                #expect(answer.status == 200, "\(answer.text)")
                return answer.json
            }
            let us = try await fetch("storefront=USA")
            #expect((us["offering"] as? [String: Any])?["id"] as? String == "annual-first")
            #expect((us["chosenBy"] as? [String: String]) == ["kind": "rule", "rule": "us"])
            let packages = try #require((us["offering"] as? [String: Any])?["packages"] as? [[String: Any]])
            #expect(packages.map { $0["productId"] as? String } == ["pro.lifetime", "pro.monthly"])
            #expect((packages[1]["eligibility"] as? [String: Bool])?["introductoryOffer"] == true)
            let germany = try await fetch("storefront=DEU")
            #expect((germany["offering"] as? [String: Any])?["id"] as? String == "default")
            #expect(((germany["offering"] as? [String: Any])?["metadata"] as? [String: Any])?["title"] as? String == "Go Pro")
            #expect((try await fetch("storefront=DEU&appVersion=3.1")["chosenBy"] as? [String: String])?["rule"] == "new-app")
            #expect((try await fetch("storefront=DEU&appVersion=2.9")["chosenBy"] as? [String: String])?["kind"] == "default")

            // The operator changes the US rule: the next fetch sees it.
            let changed = try await client.call(
                .put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin,
                body: try Self.body(Self.document(usOffering: "lifetime-only"), expectedVersion: 1))
            #expect(changed.json["version"] as? Int == 2)
            #expect((try await fetch("storefront=USA")["offering"] as? [String: Any])?["id"] as? String == "lifetime-only")
            // A change made over a stale version is refused.
            let stale = try await client.call(
                .put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(Self.document(), expectedVersion: 1))
            #expect(stale.status == 409 && stale.text.contains("version_conflict"))
            // Restoring version 1 undoes it.
            let restored = try await client.call(.post, "/v1/apps/alpha/offerings/versions/1/restore", key: Fixture.alphaAdmin)
            #expect(restored.json["version"] as? Int == 3 && restored.json["note"] as? String == "restored version 1")
            #expect((try await fetch("storefront=USA")["offering"] as? [String: Any])?["id"] as? String == "annual-first")
            let versions = try await client.call(.get, "/v1/apps/alpha/offerings/versions", key: Fixture.alphaAdmin)
            #expect((versions.json["versions"] as? [[String: Any]])?.compactMap { $0["version"] as? Int } == [3, 2, 1])
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10).map(\.action)
            #expect(audit.filter { $0.hasPrefix("offerings.") } == ["offerings.restore", "offerings.save", "offerings.save"])
            // App keys do not change offerings; another app has none.
            #expect(
                try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaKey, body: try Self.body(Self.document())).status == 403)
            #expect(try await client.call(.get, "/v1/apps/gamma/customers/dave/offerings?placement=onboarding", key: Fixture.gammaKey).status == 404)
        }
    }

    @Test("documents that refer to nothing, split traffic wrongly or name products outside the catalog are refused with the reasons")
    func validation() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            var bad = Self.document()
            bad["placements"] = [["id": "onboarding", "defaultOffering": "missing"]]
            let refused = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(bad))
            #expect(refused.status == 422 && refused.text.contains("no offering missing"))
            let split = Self.document(experiment: [
                "id": "e1", "placement": "onboarding",
                "variants": [["id": "A", "offering": "default", "percent": 60], ["id": "B", "offering": "annual-first", "percent": 30]],
            ])
            #expect(
                try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(split)).text.contains(
                    "add up to 100"))
            var product = Self.document()
            product["offerings"] = [["id": "default", "packages": [["id": "x", "productId": "not.in.catalog"]]]]
            #expect(try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(product)).status == 422)
            #expect(try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: "{\"document\": 3}").status == 400)
            let none = try await client.call(.get, "/v1/apps/alpha/customers/dave/offerings?placement=onboarding", key: Fixture.alphaKey)
            #expect(none.status == 404)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/dave/offerings", key: Fixture.alphaKey).status == 400)
        }
    }

    @Test("over 10,000 customer ids a 50/50 split lands within 2 points, and a customer's variant never changes")
    func assignment() {
        let experiment = OfferingsDocument.Experiment(
            id: "price-test", placement: "onboarding",
            variants: [.init(id: "A", offering: "default", percent: 50), .init(id: "B", offering: "annual-first", percent: 50)])
        let variants = (0..<10_000).map { ExperimentAssignment.variant(of: experiment, customerId: "customer-\($0)")?.id }
        let share = Double(variants.filter { $0 == "B" }.count) / 10_000
        #expect(abs(share - 0.5) < 0.02, "B got \(share)")
        #expect((0..<10_000).allSatisfy { ExperimentAssignment.variant(of: experiment, customerId: "customer-\($0)")?.id == variants[$0] })
        let three = OfferingsDocument.Experiment(
            id: "three", placement: "p",
            variants: [
                .init(id: "A", offering: "o", percent: 20), .init(id: "B", offering: "o", percent: 30), .init(id: "C", offering: "o", percent: 50),
            ])
        let counts = Dictionary(grouping: (0..<10_000).compactMap { ExperimentAssignment.variant(of: three, customerId: "c\($0)")?.id }, by: { $0 })
            .mapValues { Double($0.count) / 10_000 }
        #expect(abs((counts["A"] ?? 0) - 0.2) < 0.02 && abs((counts["B"] ?? 0) - 0.3) < 0.02 && abs((counts["C"] ?? 0) - 0.5) < 0.02)
    }

    @Test("exposure enrols once with an experiment.enrolled event; results count what enrolled customers did; stopping rolls the winner out")
    func experimentLifecycle() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            let experiment: [String: Any] = [
                "id": "price-test", "placement": "onboarding",
                "variants": [["id": "A", "offering": "default", "percent": 50], ["id": "B", "offering": "lifetime-only", "percent": 50]],
            ]
            #expect(
                try await client.call(
                    .put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: try Self.body(Self.document(experiment: experiment))
                ).status == 200)
            var seen: [String: String] = [:]
            for index in 0..<40 {
                let customer = "buyer-\(index)"
                let first = try await client.call(
                    .get, "/v1/apps/alpha/customers/\(customer)/offerings?placement=onboarding&storefront=USA", key: Fixture.alphaKey)
                let again = try await client.call(
                    .get, "/v1/apps/alpha/customers/\(customer)/offerings?placement=onboarding&storefront=USA", key: Fixture.alphaKey)
                let chosen = try #require(first.json["chosenBy"] as? [String: String])
                #expect(chosen["kind"] == "experiment" && chosen == again.json["chosenBy"] as? [String: String])
                seen[customer] = chosen["variant"]
            }
            #expect(Set(seen.values) == ["A", "B"])
            let enrolments = try await harness.store.enrolments(appId: "alpha", experimentId: "price-test")
            #expect(enrolments.count == 40)
            let events = try await client.call(.get, "/v1/apps/alpha/customers/buyer-0/events", key: Fixture.alphaKey)
            #expect((events.json["events"] as? [[String: Any]])?.filter { $0["type"] as? String == "experiment.enrolled" }.count == 1)

            // Every B customer buys the lifetime product; no A customer buys.
            harness.clock.set(Fixture.t0 + 3600)
            for (customer, variant) in seen where variant == "B" {
                let transaction = try SignedData.transaction(
                    id: "life-\(customer)", original: "life-\(customer)", product: "pro.lifetime", purchase: Fixture.t0 + 1800, expires: nil,
                    signed: Fixture.t0 + 1800, price: 29_990)
                let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
                #expect(
                    try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/purchases", key: Fixture.alphaKey, body: body).status == 200)
            }
            let bCount = seen.values.filter { $0 == "B" }.count
            // Read while the clock is before the sales' dates: the customers pay, and no sale is
            // counted yet (their records count sales dated after now, so they are read afresh).
            harness.clock.set(Fixture.t0 + 1200)
            let early = try await client.call(.get, "/v1/apps/alpha/experiments/price-test/results?environment=Sandbox", key: Fixture.alphaAdmin)
            let earlyRows = try #require(early.json["variants"] as? [[String: Any]], "\(early.text)")
            #expect(earlyRows.map { $0["exposed"] as? Int } == [40 - bCount, bCount])
            #expect(earlyRows.map { $0["payingCustomers"] as? Int } == [0, bCount])
            #expect(((earlyRows[1]["revenuePerExposed"] as? [String: Any])?["30d"] as? NSNumber)?.doubleValue == 0)

            harness.clock.set(Fixture.t0 + 40 * Fixture.day)
            let results = try await client.call(.get, "/v1/apps/alpha/experiments/price-test/results?environment=Sandbox", key: Fixture.alphaAdmin)
            #expect(results.status == 200, "\(results.text)")
            let rows = try #require(results.json["variants"] as? [[String: Any]])
            #expect(rows.map { $0["exposed"] as? Int } == [40 - bCount, bCount])
            #expect(rows.map { $0["payingCustomers"] as? Int } == [0, bCount])
            #expect(((rows[1]["revenuePerExposed"] as? [String: Any])?["30d"] as? NSNumber)?.doubleValue == 29.99)
            let conversion = try #require(results.json["conversion"] as? [[String: Any]])
            #expect(((conversion[1]["probabilityToBeBest"] as? NSNumber)?.doubleValue ?? 0) > 0.99)

            // A customer who bought is not new: the experiment (new customers only) no longer
            // reaches a fresh buyer's state, but the enrolled keep their variant.
            let enrolledBuyer = try #require(seen.first { $0.value == "B" }?.key)
            let kept = try await client.call(.get, "/v1/apps/alpha/customers/\(enrolledBuyer)/offerings?placement=onboarding", key: Fixture.alphaKey)
            #expect((kept.json["chosenBy"] as? [String: String])?["variant"] == "B")

            let stop = try await client.call(
                .post, "/v1/apps/alpha/experiments/price-test/stop", key: Fixture.alphaAdmin, body: "{\"winner\": \"B\"}")
            #expect(stop.status == 200, "\(stop.text)")
            let after = try await client.call(
                .get, "/v1/apps/alpha/customers/newcomer/offerings?placement=onboarding&storefront=DEU", key: Fixture.alphaKey)
            #expect((after.json["offering"] as? [String: Any])?["id"] as? String == "lifetime-only")
            #expect((after.json["chosenBy"] as? [String: String])?["kind"] == "default")
            #expect(
                try await client.call(.post, "/v1/apps/alpha/experiments/nope/stop", key: Fixture.alphaAdmin, body: "{\"winner\": \"B\"}").status
                    == 404)
        }
    }

    @Test("a customer subscribed in app A reads the shared entitlement through app B's key; the project read is the union")
    func projects() async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { $0.projects = [ProjectConfiguration(id: "studio", apps: ["alpha", "gamma"])] }
        try await ServerHarness.run(.sqlite, configure: configure) {
            harness, client in
            harness.clock.set(Fixture.t0 + 120)
            let transaction = try SignedData.transaction(
                id: "share-1", original: "share-1", purchase: Fixture.t0, expires: Fixture.t0 + 30 * Fixture.day, signed: Fixture.t0 + 60)
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/erin/purchases", key: Fixture.alphaKey, body: body).status == 200)

            let throughGamma = try await client.call(.get, "/v1/apps/gamma/customers/erin", key: Fixture.gammaKey)
            #expect(throughGamma.status == 200, "\(throughGamma.text)")
            #expect((throughGamma.json["entitlements"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String } == ["pro"])
            #expect((throughGamma.json["sharedEntitlements"] as? [[String: Any]])?.first?["appId"] as? String == "alpha")
            // Beta is not in the project: nothing shared.
            #expect(try await client.call(.get, "/v1/apps/beta/customers/erin", key: Fixture.betaKey).status == 404)

            let project = try await client.call(.get, "/v1/projects/studio/customers/erin", key: Fixture.gammaKey)
            #expect(project.status == 200, "\(project.text)")
            #expect((project.json["entitlements"] as? [[String: Any]])?.count == 1)
            #expect((project.json["apps"] as? [[String: Any]])?.compactMap { $0["appId"] as? String } == ["alpha"])
            #expect(try await client.call(.get, "/v1/projects/studio/customers/erin", key: Fixture.betaKey).status == 401)
            #expect(try await client.call(.get, "/v1/projects/nope/customers/erin", key: Fixture.gammaKey).status == 401)
            #expect(try await client.call(.get, "/v1/projects/studio/customers/erin").status == 401)
        }
    }
}
