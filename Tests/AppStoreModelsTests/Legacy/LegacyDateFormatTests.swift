import AppStoreModels
import Foundation
import Testing

@Suite struct LegacyDateFormatTests {
    @Test func formatsApplesThreeDateForms() {
        let date = Date(timeIntervalSince1970: 1_594_755_400)
        #expect(LegacyDateFormat.gmtString(from: date) == "2020-07-14 19:36:40 Etc/GMT")
        #expect(LegacyDateFormat.pacificString(from: date) == "2020-07-14 12:36:40 America/Los_Angeles")
        #expect(LegacyDateFormat.millisecondsString(from: date) == "1594755400000")
        let winter = Date(timeIntervalSince1970: 1_375_340_400 - 200 * 86_400)
        #expect(LegacyDateFormat.pacificString(from: winter).hasSuffix(" America/Los_Angeles"))
        #expect(LegacyDateFormat.gmtString(from: Date(timeIntervalSince1970: 64_060_588_800)) == "4000-01-01 00:00:00 Etc/GMT")
    }

    @Test func pacificTimeAgreesWithTheSystemTimeZoneDatabaseAcrossDaylightSavingChanges() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"), "tzdata not installed")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Every 6 hours from 1990 to 2037, plus the minutes around each transition.
        var seconds = 631_152_000
        while seconds < 2_145_916_800 {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d-%02d-%02d %02d:%02d:%02d America/Los_Angeles", parts.year ?? 0, parts.month ?? 0,
                parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            #expect(LegacyDateFormat.pacificString(from: date) == expected)
            if let next = zone.nextDaylightSavingTimeTransition(after: date), next.timeIntervalSince1970 < Double(seconds + 21_600) {
                for delta in [-1, 0, 1] {
                    let edge = next.addingTimeInterval(TimeInterval(delta))
                    let edgeParts = calendar.dateComponents([.hour], from: edge)
                    #expect(LegacyDateFormat.pacificString(from: edge).contains(String(format: " %02d:", edgeParts.hour ?? -1)))
                }
            }
            seconds += 21_600
        }
    }

    @Test func parsesEveryMillisecondAndGMTSpellingAndRejectsMasks() {
        #expect(LegacyDateFormat.date(fromGMTString: "2012-12-02 08:15:54 Etc/GMT") == Date(timeIntervalSince1970: 1_354_436_154))
        #expect(LegacyDateFormat.date(fromMillisecondsString: "1354436154000") == Date(timeIntervalSince1970: 1_354_436_154))
        #expect(LegacyDateFormat.date(fromGMTString: "******") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "2012-12-02 00:15:54 America/Los_Angeles") == nil)
        #expect(LegacyDateFormat.date(fromMillisecondsString: "") == nil)
        #expect(LegacyDateFormat.date(fromMillisecondsString: "12abc") == nil)
    }

    /// Found by `FuzzServer` on the V1 notification route: a year of 19 digits overflowed the day
    /// arithmetic and crashed the server (the body had the app's shared secret).
    @Test func refusesYearsBeyondFourDigitsAndFieldsNotWrittenAsApplesDigits() {
        #expect(LegacyDateFormat.date(fromGMTString: "5124095576030430970-11-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "9223372036854775807-12-31 23:59:59 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "\(String(repeating: "0", count: 100))2020-11-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "12020-11-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "+020-11-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "2020-1-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "2020-11-08 19:02:+9 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "٢٠٢٠-11-08 19:02:19 Etc/GMT") == nil)
        #expect(LegacyDateFormat.date(fromGMTString: "9999-12-31 23:59:59 Etc/GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(LegacyDateFormat.date(fromGMTString: "0000-01-01 00:00:00") == Date(timeIntervalSince1970: -62_167_219_200))
    }
}
