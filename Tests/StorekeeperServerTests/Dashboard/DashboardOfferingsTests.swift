import Foundation
import StorekeeperStore
import Testing

@Suite("Dashboard: offerings and experiments")
struct DashboardOfferingsTests {
    @Test("an admin saves offerings as JSON, sees experiment results, stops an experiment and restores a version; others may not")
    func offeringsPage() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await DashboardTests.addUser(harness, "owner@example.com", .admin)
            try await DashboardTests.addUser(harness, "helper@example.com", .support)
            let browser = DashboardBrowser(client)
            try await browser.signIn("owner@example.com", DashboardTests.password)
            let empty = try await browser.get("/dashboard/apps/alpha/offerings")
            #expect(empty.status == 200 && empty.text.contains("No experiments.") && empty.text.contains("No version saved yet."))
            let token = try #require(empty.csrf)
            let experiment: [String: Any] = [
                "id": "price-test", "placement": "onboarding",
                "variants": [["id": "A", "offering": "default", "percent": 50], ["id": "B", "offering": "lifetime-only", "percent": 50]],
            ]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: OfferingsTests.document(experiment: experiment)), as: UTF8.self)
            let saved = try await browser.post(
                "/dashboard/apps/alpha/offerings", ["csrf": token, "expectedVersion": "0", "document": json, "note": "first <b>try</b>"])
            #expect(saved.status == 303 && saved.location == "/dashboard/apps/alpha/offerings?saved=1")
            for index in 0..<6 {
                _ = try await client.call(.get, "/v1/apps/alpha/customers/c\(index)/offerings?placement=onboarding", key: Fixture.alphaKey)
            }
            let page = try await browser.get("/dashboard/apps/alpha/offerings?saved=1")
            #expect(page.text.contains("Saved version 1.") && page.text.contains("price-test") && page.text.contains("first &lt;b&gt;try&lt;/b&gt;"))
            #expect(page.text.contains("lifetime-only") && page.text.contains("Stop"))
            let invalid = try await browser.post(
                "/dashboard/apps/alpha/offerings",
                ["csrf": token, "expectedVersion": "1", "document": "{\"placements\": [{\"id\": \"p\", \"defaultOffering\": \"none\"}]}"])
            #expect(invalid.status == 422 && invalid.text.contains("no offering none"))
            let stopped = try await browser.post("/dashboard/apps/alpha/experiments/price-test/stop", ["csrf": token, "winner": "B"])
            #expect(stopped.status == 303 && stopped.location == "/dashboard/apps/alpha/offerings?saved=2")
            let restored = try await browser.post("/dashboard/apps/alpha/offerings/versions/1/restore", ["csrf": token])
            #expect(restored.status == 303 && restored.location == "/dashboard/apps/alpha/offerings?saved=3")
            #expect(try await browser.post("/dashboard/apps/alpha/offerings/versions/1/restore", [:]).status == 403)
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(audit.map(\.action) == ["offerings.restore", "experiment.stop", "offerings.save"])
            #expect(audit.allSatisfy { $0.actor == "dashboard:owner@example.com" })

            let support = DashboardBrowser(client)
            try await support.signIn("helper@example.com", DashboardTests.password)
            #expect(try await support.get("/dashboard/apps/alpha/offerings").status == 403)
        }
    }
}
