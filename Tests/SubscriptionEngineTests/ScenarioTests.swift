import Foundation
import SubscriptionEngine
import SubscriptionReport
import Testing

/// Every named scenario, read from both of Apple's forms, gets Apple's status and eligibility.
@Suite("Scenarios in both source forms")
struct ScenarioTests {
    static func state(_ json: Data, _ scenario: Scenario) throws -> CustomerState {
        let history = try StatusInput(json: json).history
        return CustomerState(
            history: history, catalog: scenarioCatalog, at: ScenarioHistory.day(scenario.at),
            configuration: EngineConfiguration(introductoryOfferRule: scenario.rule)
        )
    }

    @Test("StoreKit 2 form", arguments: Scenario.all)
    func storeKit2Form(_ scenario: Scenario) throws {
        try Self.verify(Self.state(scenario.history.storeKit2JSON, scenario), scenario)
    }

    @Test("legacy verifyReceipt form", arguments: Scenario.all)
    func legacyForm(_ scenario: Scenario) throws {
        try Self.verify(Self.state(scenario.history.verifyReceiptJSON, scenario), scenario)
    }

    @Test("both forms agree on status, entitlements and eligibility", arguments: Scenario.all)
    func formsAgree(_ scenario: Scenario) throws {
        let modern = try Self.state(scenario.history.storeKit2JSON, scenario)
        let legacy = try Self.state(scenario.history.verifyReceiptJSON, scenario)
        #expect(modern.subscriptions.map(\.status) == legacy.subscriptions.map(\.status))
        #expect(modern.subscriptions.map(\.productId) == legacy.subscriptions.map(\.productId))
        #expect(modern.subscriptions.map(\.accessEndsDate) == legacy.subscriptions.map(\.accessEndsDate))
        #expect(modern.entitlements.map(\.identifier) == legacy.entitlements.map(\.identifier))
        #expect(modern.eligibility.mapValues(\.introductoryOffer) == legacy.eligibility.mapValues(\.introductoryOffer))
        #expect(modern.eligibility.mapValues(\.introductoryOfferReason) == legacy.eligibility.mapValues(\.introductoryOfferReason))
        #expect(modern.eligibility.mapValues(\.promotionalOffer) == legacy.eligibility.mapValues(\.promotionalOffer))
    }

    @Test("the status report says what the state says", arguments: Scenario.all)
    func reportAgrees(_ scenario: Scenario) throws {
        for json in [scenario.history.storeKit2JSON, scenario.history.verifyReceiptJSON] {
            let report = try StatusReport(
                input: json, catalog: scenarioCatalogJSON, at: ScenarioHistory.day(scenario.at),
                configuration: EngineConfiguration(introductoryOfferRule: scenario.rule)
            )
            #expect(Dictionary(uniqueKeysWithValues: report.subscriptions.map { ($0.originalTransactionId, $0.status) }) == scenario.statuses)
            #expect(report.eligibility.mapValues(\.introductoryOffer) == scenario.intro)
            #expect(Set(report.entitlements.map(\.identifier)) == scenario.entitlements)
            let decoded = try JSONDecoder().decode(StatusReport.self, from: report.jsonData())
            #expect(decoded == report)
        }
    }

    static func verify(_ state: CustomerState, _ scenario: Scenario, sourceLocation: SourceLocation = #_sourceLocation) {
        let statuses = Dictionary(uniqueKeysWithValues: state.subscriptions.map { ($0.originalTransactionId, $0.status) })
        #expect(statuses == scenario.statuses, sourceLocation: sourceLocation)
        #expect(state.eligibility.mapValues(\.introductoryOffer) == scenario.intro, sourceLocation: sourceLocation)
        for (group, expected) in scenario.promo {
            #expect(state.eligibility[group]?.promotionalOffer == expected, "promotional offer in \(group)", sourceLocation: sourceLocation)
        }
        #expect(Set(state.entitlements.map(\.identifier)) == scenario.entitlements, sourceLocation: sourceLocation)
        #expect(state.diagnostics.isEmpty, "\(state.diagnostics)", sourceLocation: sourceLocation)
        for check in scenario.checks {
            switch check {
            case .product(let id, let product):
                #expect(state.subscription(id)?.productId == product, sourceLocation: sourceLocation)
            case .expirationReason(let id, let reason):
                #expect(state.subscription(id)?.expirationReason == reason, sourceLocation: sourceLocation)
            case .nextProduct(let id, let product):
                #expect(state.subscription(id)?.nextProductId == product, sourceLocation: sourceLocation)
            case .offer(let id, let kind, let identifier):
                #expect(state.subscription(id)?.offer?.kind == kind, sourceLocation: sourceLocation)
                #expect(state.subscription(id)?.offer?.identifier == identifier, sourceLocation: sourceLocation)
            case .ownership(let id, let ownership):
                #expect(state.subscription(id)?.ownership == ownership, sourceLocation: sourceLocation)
            case .revocation(let id, let kind):
                #expect(state.subscription(id)?.revocation?.kind == kind, sourceLocation: sourceLocation)
            case .introReason(let group, let reason):
                #expect(state.eligibility[group]?.introductoryOfferReason == reason, sourceLocation: sourceLocation)
            case .accessEnds(let id, let days):
                #expect(state.subscription(id)?.accessEndsDate == ScenarioHistory.day(days), sourceLocation: sourceLocation)
            case .priceIncrease(let id, let consent):
                #expect(state.subscription(id)?.priceIncreaseConsent == consent, sourceLocation: sourceLocation)
            case .nextLook(let id, let reason):
                #expect(state.nextLooks[id]?.reason == reason, sourceLocation: sourceLocation)
            case .consumables(let count):
                #expect(state.consumables.count == count, sourceLocation: sourceLocation)
            case .entitlementEnds(let identifier, let days):
                let entitlement = state.entitlements.first { $0.identifier == identifier }
                #expect(entitlement != nil, sourceLocation: sourceLocation)
                #expect(entitlement?.expiresDate == days.map(ScenarioHistory.day), sourceLocation: sourceLocation)
            }
        }
    }
}
