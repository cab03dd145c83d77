import AppStoreModels
import Foundation
import Testing

/// Every model fixture decodes into its type and re-encodes to an equivalent JSON document.
@Suite struct ModelFixtureRoundTripTests {
    @Test(arguments: ModelFixtureCase.all)
    func fixtureDecodesAndReEncodesToEquivalentJSON(_ fixture: ModelFixtureCase) throws {
        let original = try ModelFixtures.data(fixture.file)
        let reencoded = try fixture.roundTrip(original)

        var expected = try #require(try ModelFixtures.tree(original) as? [String: Any])
        for (key, value) in fixture.addedKeys { expected[key] = value }
        let difference = ModelFixtures.difference(try ModelFixtures.tree(reencoded), expected)
        #expect(difference == nil, "\(fixture.file): \(difference ?? "")")
    }

    @Test func everyModelFixtureIsInTheTable() throws {
        let covered = Set(ModelFixtureCase.all.map(\.file))
        let expectedFailures: Set = ["transactionHistoryResponseWithMalformedAppAppleId"]
        let uncovered = try ModelFixtures.names().filter { !covered.contains($0) && !expectedFailures.contains($0) }
        #expect(uncovered.isEmpty, "fixtures without a type: \(uncovered)")
        #expect(covered.count == ModelFixtureCase.all.count, "a fixture is listed twice")
    }
}
