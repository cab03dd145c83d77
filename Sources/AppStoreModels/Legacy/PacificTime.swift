/// US Pacific time (America/Los_Angeles): UTC−8, UTC−7 while daylight saving time is in effect.
enum PacificTime {
    static func offsetSeconds(atUTC seconds: Int) -> Int {
        let standard = -8 * 3_600
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let year = CivilCalendar.date(daysSinceEpoch: days).year
        let (start, end) = daylightSavingBounds(year: year)
        return seconds >= start && seconds < end ? standard + 3_600 : standard
    }

    /// UTC seconds at which daylight saving time starts (02:00 PST) and ends (02:00 PDT) in `year`.
    private static func daylightSavingBounds(year: Int) -> (start: Int, end: Int) {
        let startDay: Int
        let endDay: Int
        if year >= 2007 {
            startDay = nthSunday(2, year: year, month: 3)
            endDay = nthSunday(1, year: year, month: 11)
        } else if year >= 1987 {
            startDay = nthSunday(1, year: year, month: 4)
            endDay = lastSunday(year: year, month: 10)
        } else {
            startDay = lastSunday(year: year, month: 4)
            endDay = lastSunday(year: year, month: 10)
        }
        return (startDay * 86_400 + 10 * 3_600, endDay * 86_400 + 9 * 3_600)
    }

    private static func nthSunday(_ n: Int, year: Int, month: Int) -> Int {
        let first = CivilCalendar.daysSinceEpoch(year: year, month: month, day: 1)
        let toSunday = (7 - CivilCalendar.weekday(daysSinceEpoch: first)) % 7
        return first + toSunday + (n - 1) * 7
    }

    private static func lastSunday(year: Int, month: Int) -> Int {
        let nextMonthFirst =
            month == 12
            ? CivilCalendar.daysSinceEpoch(year: year + 1, month: 1, day: 1)
            : CivilCalendar.daysSinceEpoch(year: year, month: month + 1, day: 1)
        let last = nextMonthFirst - 1
        return last - CivilCalendar.weekday(daysSinceEpoch: last)
    }
}
