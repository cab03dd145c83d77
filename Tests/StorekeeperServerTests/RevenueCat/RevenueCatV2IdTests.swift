import Foundation
import StorekeeperApps
import StorekeeperHTTP
import SubscriptionEngine
import Testing

@Suite("RevenueCat v2 ids, pages and money")
struct RevenueCatV2IdTests {
    static func project() throws -> RevenueCatV2Project {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-rcv2-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, _) = try Fixture.configuration(directory: directory)
        let apps = try AppDirectory(configuration: configuration)
        return RevenueCatV2Project(id: "proj1", apps: ["alpha", "gamma"].compactMap { apps.apps[$0] }, appsRecordedAt: [:])
    }

    @Test("ids read back to their app and parts, whatever the last part holds; another prefix, app or shape names nothing")
    func ids() throws {
        let project = try Self.project()
        let alpha = try #require(project.app("alpha"))
        for chain in ["2000000123", "a:b:c", "with space", "ü"] {
            let parsed = project.parse(RevenueCatV2Project.subscriptionId(alpha, chain), prefix: "sub_", parts: 1)
            #expect(parsed?.app.id == "alpha")
            #expect(parsed?.parts == [chain])
        }
        let package = project.parse(RevenueCatV2Project.packageId(alpha, "default", "monthly:2"), prefix: "pkge_", parts: 2)
        #expect(package?.parts == ["default", "monthly:2"])
        #expect(project.parse("sub_alpha:x", prefix: "purch_", parts: 1) == nil)
        #expect(project.parse("sub_beta:x", prefix: "sub_", parts: 1) == nil, "beta is not in the project")
        #expect(project.parse("sub_alpha", prefix: "sub_", parts: 1) == nil)
        #expect(project.parse("sub_alpha:", prefix: "sub_", parts: 1) == nil)
        #expect(project.parse("pkge_alpha:default", prefix: "pkge_", parts: 2) == nil)
        #expect(project.product(id: "prod_gamma:pro.lifetime")?.storeIdentifier == "pro.lifetime")
        #expect(project.product(id: "prod_gamma:pro.lifetime")?.type == "one_time")
        #expect(project.product(id: "prod_alpha:pro.monthly")?.type == "subscription")
        #expect(project.product(id: "prod_alpha:pro.yearly") == nil)
    }

    @Test("a page starts after the named item and says where the next starts; a cursor that names no item is refused")
    func pages() throws {
        let items = ["a", "b", "c", "d", "e"]
        let first = try RevenueCatV2Page(limit: 2).list(items, id: { $0 }, path: "/v2/x")
        #expect(first.items == ["a", "b"])
        #expect(first.nextPage == "/v2/x?starting_after=b")
        let last = try RevenueCatV2Page(limit: 2, startingAfter: "d", limitGiven: true).list(items, id: { $0 }, path: "/v2/x")
        #expect(last.items == ["e"])
        #expect(last.nextPage == nil)
        let exact = try RevenueCatV2Page(limit: 3, startingAfter: "b").list(items, id: { $0 }, path: "/v2/x")
        #expect(exact.items == ["c", "d", "e"] && exact.nextPage == nil)
        #expect(throws: RevenueCatV2Error.self) { try RevenueCatV2Page(startingAfter: "z").list(items, id: { $0 }, path: "/v2/x") }
        #expect(RevenueCatV2Page(limit: 5, limitGiven: true).nextPage(path: "/v2/x", after: "a b&c") == "/v2/x?starting_after=a%20b%26c&limit=5")
    }

    @Test("a customer's money is in the currency it paid, refunds taken off; mixed currencies count only USD")
    func money() {
        let day = Date(timeIntervalSince1970: 1_767_225_600)
        func paid(_ milliunits: Int64, _ currency: String, refunded: Int64 = 0) -> TransactionRevenue {
            let price = Money(milliunits: milliunits, currency: currency)
            let kept = milliunits - refunded
            return TransactionRevenue(
                transactionId: UUID().uuidString, originalTransactionId: "1", productId: "p", purchaseDate: day, price: price, commissionRate: 3000,
                refunded: Money(milliunits: refunded, currency: currency), proceeds: Money(milliunits: kept * 7 / 10, currency: currency),
                paidServiceBefore: 0)
        }
        let euros = RevenueCatV2Customers.money([paid(9990, "EUR"), paid(9990, "EUR", refunded: 9990)])
        #expect(euros.currency == "EUR" && euros.gross == Decimal(string: "9.99") && euros.proceeds == Decimal(string: "6.993"))
        #expect(euros.commission == Decimal(string: "2.997") && euros.tax == 0)
        let mixed = RevenueCatV2Customers.money([paid(9990, "EUR"), paid(4990, "USD")])
        #expect(mixed.currency == "USD" && mixed.gross == Decimal(string: "4.99"))
        #expect(RevenueCatV2Customers.money([]).currency == "USD")
    }
}
