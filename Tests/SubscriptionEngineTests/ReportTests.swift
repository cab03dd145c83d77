import Foundation
import SubscriptionEngine
import SubscriptionReport
import Testing

@Suite("Status report")
struct ReportTests {
    @Test("catalog groups appear in eligibility without purchases, dates are ISO 8601")
    func emptyHistory() throws {
        let report = try StatusReport(
            input: Data(#"{"transactions": [], "renewalInfo": []}"#.utf8), catalog: scenarioCatalogJSON,
            at: try #require(ReportDate.parse("2024-05-01T12:00:00Z")))
        #expect(report.at == "2024-05-01T12:00:00Z")
        #expect(report.subscriptions.isEmpty)
        #expect(Set(report.eligibility.keys) == ["g", "h", "z"])
        #expect(report.eligibility["z"]?.introductoryOffer == true)
        #expect(report.eligibility["z"]?.reason == .neverSubscribed)
        let json = try #require(String(data: report.jsonData(prettyPrinted: false), encoding: .utf8))
        #expect(json.contains(#""eligibility":{"g":{"#))
    }

    @Test("subscription entries carry the fields the CLI prints")
    func fields() throws {
        let history = ScenarioHistory(
            periods: [ScenarioHistory.sub("t1", "t1", "pro.monthly", 0, 30)],
            renewals: [.init(original: "t1", product: "pro.monthly", next: "basic.monthly")])
        let report = try StatusReport(input: history.storeKit2JSON, catalog: nil, at: ScenarioHistory.day(10))
        let entry = try #require(report.subscriptions.first)
        #expect(entry.originalTransactionId == "t1")
        #expect(entry.subscriptionGroupIdentifier == "g")
        #expect(entry.status == .active)
        #expect(entry.appleStatus == 1)
        #expect(entry.expiresDate == "2024-01-31T00:00:00Z")
        #expect(entry.nextProductId == "basic.monthly")
        #expect(entry.nextLookReason == .periodEnd)
        #expect(report.entitlements.map(\.identifier) == ["pro.monthly"])
    }

    @Test("without a catalog, legacy products of unknown type are reported, not guessed")
    func unknownProductType() throws {
        let history = ScenarioHistory(periods: [
            ScenarioHistory.Period(tx: "l1", original: "l1", product: "lifetime", group: nil, type: .nonConsumable, start: 0)
        ])
        let report = try StatusReport(input: history.verifyReceiptJSON, catalog: nil, at: ScenarioHistory.day(1))
        #expect(report.entitlements.isEmpty)
        #expect(report.diagnostics.map(\.code) == [.unknownProductType])
    }

    @Test(
        "unreadable inputs are typed errors",
        arguments: [
            ("not json", StatusReportError.Code.unreadableInput),
            ("[1, 2]", .unreadableInput),
            (#"{"something": 1}"#, .unreadableInput),
            (#"{"status": 21002}"#, .receiptNotValid),
            (#"{"transactions": 5}"#, .unreadableInput),
        ])
    func unreadable(_ text: String, _ code: StatusReportError.Code) {
        #expect(throws: StatusReportError.self) { try StatusReport(input: Data(text.utf8), catalog: nil, at: ScenarioHistory.day(0)) }
        do {
            _ = try StatusReport(input: Data(text.utf8), catalog: nil, at: ScenarioHistory.day(0))
        } catch {
            #expect(error.code == code)
        }
    }

    @Test("a bad catalog is a typed error")
    func badCatalog() {
        let catalog = Data(#"{"products": [{"productId": "a", "type": "gizmo"}]}"#.utf8)
        do {
            _ = try StatusReport(input: Data(#"{"transactions": []}"#.utf8), catalog: catalog, at: ScenarioHistory.day(0))
            Issue.record("a catalog with an unknown product type was accepted")
        } catch {
            #expect(error.code == .unreadableCatalog)
        }
    }
}
