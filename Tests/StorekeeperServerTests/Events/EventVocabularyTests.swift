import Foundation
import StorekeeperStore
import SubscriptionEngine
import Testing

@testable import StorekeeperEventsOut
@testable import StorekeeperServer

/// The one vocabulary of events (`EventType`) against the engine, the documentation and the
/// vendors' templates: a name added in one place and not the others fails here.
@Suite("Events: one vocabulary")
struct EventVocabularyTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("every engine transition is a customer event of the same name; no name is both delivered and internal; names are unique")
    func engineAndFamilies() {
        let customer = EventType.customerEvents.map(\.rawValue)
        for kind in Transition.Kind.all {
            #expect(customer.contains(kind.rawValue), "\(kind)")
        }
        let internalNames = EventType.internalRecords.map(\.rawValue)
        #expect(Set(customer).isDisjoint(with: internalNames))
        #expect(Set(customer).count == customer.count)
        #expect(Set(internalNames).count == internalNames.count)
        for name in customer + internalNames {
            #expect(name.wholeMatch(of: /[a-z]+\.[a-z_]+/) != nil, "\(name)")
        }
    }

    @Test("the event reference (docs/events.md, docs/offerings.md) names every customer event, and no name it gives is unknown")
    func documented() throws {
        let text = try ["docs/events.md", "docs/offerings.md"].map {
            try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        let spans = Set(text.matches(of: /`([a-z]+\.[a-z_]+)`/).map { String($0.output.1) })
        for event in EventType.customerEvents where event != .testEvent {
            #expect(spans.contains(event.rawValue), "\(event) is not in the event reference")
        }
        let known = Set((EventType.customerEvents + EventType.internalRecords).map(\.rawValue))
        let families = Set(known.map { String($0.prefix { $0 != "." }) })
        for span in spans where families.contains(String(span.prefix { $0 != "." })) && !span.hasSuffix(".md") {
            #expect(known.contains(span), "the reference names \(span), which the server never writes")
        }
    }

    @Test("Slack and Telegram have a default line for every customer event and for no other name")
    func templates() {
        let customer = Set(EventType.customerEvents.map(\.rawValue))
        #expect(Set(IntegrationMessages.defaultTemplates.keys) == customer)
    }
}
