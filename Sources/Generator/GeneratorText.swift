import Events

/// The word lists generated events are made of: real-looking names, places and notes, with some
/// non-ASCII text (diacritics, Chinese) as real data has.
enum GeneratorText {
  /// A US state or territory: its name, postal abbreviation and the first three digits its zip
  /// codes start with (approximately the real ranges).
  struct USState {
    var name: String
    var abbreviation: String
    var zipPrefixes: ClosedRange<Int>
  }

  /// The 50 states, the District of Columbia and five territories.
  static let states: [USState] = [
    USState(name: "Alabama", abbreviation: "AL", zipPrefixes: 350...369),
    USState(name: "Alaska", abbreviation: "AK", zipPrefixes: 995...999),
    USState(name: "Arizona", abbreviation: "AZ", zipPrefixes: 850...865),
    USState(name: "Arkansas", abbreviation: "AR", zipPrefixes: 716...729),
    USState(name: "California", abbreviation: "CA", zipPrefixes: 900...961),
    USState(name: "Colorado", abbreviation: "CO", zipPrefixes: 800...816),
    USState(name: "Connecticut", abbreviation: "CT", zipPrefixes: 60...69),
    USState(name: "Delaware", abbreviation: "DE", zipPrefixes: 197...199),
    USState(name: "District of Columbia", abbreviation: "DC", zipPrefixes: 200...205),
    USState(name: "Florida", abbreviation: "FL", zipPrefixes: 320...349),
    USState(name: "Georgia", abbreviation: "GA", zipPrefixes: 300...319),
    USState(name: "Hawaii", abbreviation: "HI", zipPrefixes: 967...968),
    USState(name: "Idaho", abbreviation: "ID", zipPrefixes: 832...838),
    USState(name: "Illinois", abbreviation: "IL", zipPrefixes: 600...629),
    USState(name: "Indiana", abbreviation: "IN", zipPrefixes: 460...479),
    USState(name: "Iowa", abbreviation: "IA", zipPrefixes: 500...528),
    USState(name: "Kansas", abbreviation: "KS", zipPrefixes: 660...679),
    USState(name: "Kentucky", abbreviation: "KY", zipPrefixes: 400...427),
    USState(name: "Louisiana", abbreviation: "LA", zipPrefixes: 700...714),
    USState(name: "Maine", abbreviation: "ME", zipPrefixes: 39...49),
    USState(name: "Maryland", abbreviation: "MD", zipPrefixes: 206...219),
    USState(name: "Massachusetts", abbreviation: "MA", zipPrefixes: 10...27),
    USState(name: "Michigan", abbreviation: "MI", zipPrefixes: 480...499),
    USState(name: "Minnesota", abbreviation: "MN", zipPrefixes: 550...567),
    USState(name: "Mississippi", abbreviation: "MS", zipPrefixes: 386...397),
    USState(name: "Missouri", abbreviation: "MO", zipPrefixes: 630...658),
    USState(name: "Montana", abbreviation: "MT", zipPrefixes: 590...599),
    USState(name: "Nebraska", abbreviation: "NE", zipPrefixes: 680...693),
    USState(name: "Nevada", abbreviation: "NV", zipPrefixes: 889...898),
    USState(name: "New Hampshire", abbreviation: "NH", zipPrefixes: 30...38),
    USState(name: "New Jersey", abbreviation: "NJ", zipPrefixes: 70...89),
    USState(name: "New Mexico", abbreviation: "NM", zipPrefixes: 870...884),
    USState(name: "New York", abbreviation: "NY", zipPrefixes: 100...149),
    USState(name: "North Carolina", abbreviation: "NC", zipPrefixes: 270...289),
    USState(name: "North Dakota", abbreviation: "ND", zipPrefixes: 580...588),
    USState(name: "Ohio", abbreviation: "OH", zipPrefixes: 430...458),
    USState(name: "Oklahoma", abbreviation: "OK", zipPrefixes: 730...749),
    USState(name: "Oregon", abbreviation: "OR", zipPrefixes: 970...979),
    USState(name: "Pennsylvania", abbreviation: "PA", zipPrefixes: 150...196),
    USState(name: "Rhode Island", abbreviation: "RI", zipPrefixes: 28...29),
    USState(name: "South Carolina", abbreviation: "SC", zipPrefixes: 290...299),
    USState(name: "South Dakota", abbreviation: "SD", zipPrefixes: 570...577),
    USState(name: "Tennessee", abbreviation: "TN", zipPrefixes: 370...385),
    USState(name: "Texas", abbreviation: "TX", zipPrefixes: 750...799),
    USState(name: "Utah", abbreviation: "UT", zipPrefixes: 840...847),
    USState(name: "Vermont", abbreviation: "VT", zipPrefixes: 50...59),
    USState(name: "Virginia", abbreviation: "VA", zipPrefixes: 220...246),
    USState(name: "Washington", abbreviation: "WA", zipPrefixes: 980...994),
    USState(name: "West Virginia", abbreviation: "WV", zipPrefixes: 247...268),
    USState(name: "Wisconsin", abbreviation: "WI", zipPrefixes: 530...549),
    USState(name: "Wyoming", abbreviation: "WY", zipPrefixes: 820...831),
    USState(name: "Puerto Rico", abbreviation: "PR", zipPrefixes: 6...9),
    USState(name: "Guam", abbreviation: "GU", zipPrefixes: 969...969),
    USState(name: "U.S. Virgin Islands", abbreviation: "VI", zipPrefixes: 8...8),
    USState(name: "American Samoa", abbreviation: "AS", zipPrefixes: 967...967),
    USState(name: "Northern Mariana Islands", abbreviation: "MP", zipPrefixes: 969...969),
  ]

  /// Cities for contacts' addresses, each with its index in `states`.
  static let cities: [(name: String, state: Int)] = [
    "Phoenix/AZ", "Tucson/AZ", "Los Angeles/CA", "San Francisco/CA", "San Diego/CA", "Denver/CO",
    "Hartford/CT", "Miami/FL", "Orlando/FL", "Atlanta/GA", "Honolulu/HI", "Chicago/IL",
    "Indianapolis/IN", "Louisville/KY", "New Orleans/LA", "Portland/ME", "Baltimore/MD",
    "Boston/MA", "Detroit/MI", "Minneapolis/MN", "St. Louis/MO", "Omaha/NE", "Las Vegas/NV",
    "Newark/NJ", "Albuquerque/NM", "New York/NY", "Buffalo/NY", "Charlotte/NC", "Columbus/OH",
    "Cleveland/OH", "Oklahoma City/OK", "Portland/OR", "Philadelphia/PA", "Pittsburgh/PA",
    "Providence/RI", "Nashville/TN", "Memphis/TN", "Austin/TX", "Houston/TX", "Dallas/TX",
    "Salt Lake City/UT", "Burlington/VT", "Richmond/VA", "Seattle/WA", "Milwaukee/WI",
    "Anchorage/AK", "Boise/ID", "Des Moines/IA", "San Juan/PR", "Hagåtña/GU",
  ].map { entry in
    let parts = entry.split(separator: "/")
    let abbreviation = String(parts[1])
    return (String(parts[0]), states.firstIndex { $0.abbreviation == abbreviation } ?? 0)
  }

  static let firstNames = [
    "Ana", "Ben", "Chloé", "Dmitri", "Élodie", "Farah", "Gustavo", "Hannah", "Ibrahim", "Jia",
    "Kofi", "Lena", "Mateo", "Nadia", "Oliver", "Priya", "Quinn", "Rosa", "Søren", "Tomás",
    "Uma", "Victor", "Wen", "Ximena", "Yusuf", "Zoë", "Aiko", "Bruno", "Camille", "Diego",
    "Emma", "Felix", "Grace", "Hugo", "Isla", "José", "Kai", "Lucía", "Miles", "Nora", "Omar",
    "Paula", "Rafael", "Sofia", "Theo", "Valentina", "William", "Yara",
  ]

  static let lastNames = [
    "Anderson", "Bianchi", "Chen", "Dubois", "Eriksson", "Fernández", "García", "Hoffmann",
    "Ivanova", "Jensen", "Kowalski", "Lee", "Müller", "Nakamura", "O'Brien", "Petrov", "Quispe",
    "Rossi", "Schmidt", "Tanaka", "Usman", "van der Berg", "Wang", "Xu", "Yilmaz", "Zhang",
    "Ødegaard", "Brown", "Costa", "Dlamini", "Evans", "Fischer", "Gómez", "Haddad", "Ito",
    "Johnson", "Kim", "López", "Martin", "Ng", "Okafor", "Pereira", "Rahman", "Silva", "Smith",
    "Thompson", "Vargas", "Walker",
  ]

  static let companies = [
    "Muppets, Baby", "Acme Corporation", "Globex", "Initech", "Umbrella Health",
    "Stark Industries", "Wayne Enterprises", "Hooli", "Pied Piper", "Vandelay Industries",
    "Dunder Mifflin", "Soylent", "Wonka Industries", "Tyrell Corporation", "Cyberdyne Systems",
    "Oceanic Airlines", "Monsters, Inc.", "Bluth Company", "Sterling Cooper",
    "Prestige Worldwide", "Massive Dynamic", "Nakatomi Trading", "Aperture Science",
    "Black Mesa", "Blue Sun", "Buy n Large", "Cogswell Cogs", "Spacely Sprockets", "Duff Brewing",
    "Virtucon", "Weyland-Yutani", "Yoyodyne", "Zorg Industries", "Mom's Friendly Robots",
    "北風貿易", "Gekko & Co",
  ]

  static let streets = [
    "E Washington St", "Main St", "Oak Ave", "Maple Dr", "Elm St", "Sunset Blvd", "Broadway",
    "Market St", "Park Ave", "Lake Shore Dr", "Peachtree St NE", "Congress Ave", "Pike St",
    "Bourbon St", "Beacon St", "N Michigan Ave", "Canal St", "E Colfax Ave", "Euclid Ave",
    "Magnolia Ln", "Cedar Rd", "Pine St", "Highland Ave", "River Rd",
  ]

  /// Common species of each classification, for observation titles.
  static let species: [Classification: [String]] = [
    .amphibian: [
      "American Bullfrog", "Spring Peeper", "Eastern Newt", "Tiger Salamander", "Green Tree Frog",
      "Cane Toad", "Spotted Salamander", "Wood Frog",
    ],
    .bird: [
      "Red-tailed Hawk", "American Robin", "Great Blue Heron", "Northern Cardinal", "Bald Eagle",
      "Barn Owl", "Ruby-throated Hummingbird", "Belted Kingfisher",
    ],
    .fish: [
      "Rainbow Trout", "Largemouth Bass", "Bluegill", "Channel Catfish", "Brook Trout",
      "Common Carp", "Yellow Perch", "Northern Pike",
    ],
    .insect: [
      "Monarch Butterfly", "Honey Bee", "Seven-spotted Ladybug", "Common Green Darner",
      "Praying Mantis", "Firefly", "Luna Moth", "Eastern Tiger Swallowtail",
    ],
    .mammal: [
      "White-tailed Deer", "Eastern Gray Squirrel", "Raccoon", "Red Fox", "Black Bear",
      "River Otter", "Coyote", "Little Brown Bat",
    ],
    .plant: [
      "Eastern Redbud", "Black-eyed Susan", "Poison Ivy", "Sugar Maple", "Common Milkweed",
      "Wild Bergamot", "Skunk Cabbage", "Jack-in-the-pulpit",
    ],
    .reptile: [
      "Eastern Box Turtle", "Garter Snake", "Painted Turtle", "Green Anole", "Five-lined Skink",
      "Snapping Turtle", "Rat Snake", "Fence Lizard",
    ],
  ]

  /// What the observer wrote about what they saw.
  static let observationNotes = [
    "Standing in tree in middle of wooded area.",
    "Flew low over the meadow, then perched on a fence post.",
    "Two adults and a juvenile near the north bank of the creek.",
    "Heard calling at dusk; seen briefly with binoculars.",
    "Basking on a log in full sun, about 20 °C.",
    "Found under leaf litter after last night's rain.",
    "Feeding on nectar in the milkweed patch by the trailhead.",
    "Tracks in the mud by the pond; the animal itself seen at 06:40.",
    "Large colony on the south-facing slope, in flower.",
    "Caught and released; measured 31 cm.",
    "Photographed from the boardwalk — see the survey album.",
    "Dead specimen on the road shoulder near mile marker 12; reported to the county.",
    "Nest with three eggs in the hedgerow; did not approach.",
    "Seen crossing the gravel path, moving slowly toward the wetland.",
    "Several individuals in the shallows, feeding on insects at the surface.",
    "Leaves just starting to turn; the grove is about thirty trees.",
    "First of the season. Earlier than last year's first record by nine days.",
    "Behaviour looked unusual: circling the same spot for over ten minutes, then gone into the "
      + "reeds. Worth checking again at the same time tomorrow.",
    "Identified by call only. The recording is in the shared folder under today's date; a "
      + "second opinion on the identification would be welcome before we enter it in the atlas.",
    "Group of volunteers (Ana, Kofi, Mei) counted them along the 2 km transect; counts agree "
      + "within two. Weather: overcast, light wind from the west, 14 °C.",
    "Eaten by a heron moments after the photo was taken.",
    "On the underside of a leaf, 1.5 m above ground.",
    "Small population near the culvert; the habitat is shrinking as the path is widened.",
    "Marked with a temporary flag for the botany team.",
  ]

  /// Place names for locations (the real GeoJSON uses the NATO alphabet).
  static let placeNames = [
    "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett",
    "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango",
    "Uniform", "Victor", "Whiskey", "X-ray", "Yankee", "Zulu", "Lighthouse", "Harbor Master",
    "North Gate", "Trailhead", "Ranger Station", "Summit", "Visitor Center", "Old Mill",
    "Boat Ramp", "Ice Station", "Research Hut", "Weather Mast", "Base Camp", "Supply Depot",
    "Pōhue Bay", "Ålesund Pier", "南港站", "Tromsø Field", "São Tomé Dock",
  ]

  /// Animals users insert: a name and a description.
  static let insertedAnimals: [(name: String, description: String)] = [
    ("臺灣黑熊 Formosan black bear", "Rescued in Yushan; settling into the Formosan animal area."),
    ("穿山甲 Chinese pangolin", "In quarantine until December."),
    ("水獺 Eurasian otter", "Playful; fed at 10:00 and 15:00."),
    ("石虎 Leopard cat", "Found injured near Miaoli; released when recovered."),
    ("臺灣藍鵲 Taiwan blue magpie", "Hand-raised chick, now in the aviary."),
    ("梅花鹿 Formosan sika deer", "Born in the zoo this spring."),
    ("食蟹獴 Crab-eating mongoose", ""),
    ("領角鴞 Collared scops owl", "Nocturnal; best seen after 17:00 in the owl house."),
  ]

  /// Who makes changes in each domain.
  static let actors: [EntityKind: [String]] = [
    .observation: ["mei", "ravi", "tomas"],
    .state: ["sam", "nora"],
    .animal: ["lee", "yu-ting"],
    .location: ["kim", "omar"],
    .contact: ["ana", "jo", "priya"],
  ]

  /// Why, for the events that sometimes say so.
  static let reasons: [String: [String]] = [
    "ContactAdded": ["met at the expo", "new supplier", "referred by Kofi"],
    "ContactUpdated": ["new job", "moved house", "typo in the email address"],
    "ContactFavorited": ["VIP donor", "new partner", "met at the expo"],
    "ContactUnfavorited": ["left the company", "spring cleaning of favourites"],
    "StateAdded": ["new sales territory"],
    "ZipCodeAdded": ["new delivery area", "USPS update"],
    "ZipCodeModified": ["typo in the source file", "USPS correction", "renumbered by USPS"],
    "ZipCodeRemoved": ["listed under the wrong state", "area no longer served"],
    "AnimalImported": ["nightly sync of the Taipei Zoo open data"],
    "AnimalInserted": ["new arrival", "rescued, in quarantine"],
    "AnimalRemoved": ["transferred to another zoo", "duplicate entry"],
    "LocationAdded": ["survey point", "new site"],
    "LocationRenamed": ["renamed by the landowner", "clearer name"],
    "LocationMoved": ["GPS correction", "re-surveyed", "moved with the buoy"],
    "LocationRemoved": ["site closed"],
    "ObservationRecorded": ["morning transect", "volunteer report"],
    "ObservationRevised": ["second visit", "identification corrected", "photo added"],
    "ObservationRemoved": ["duplicate record", "misidentified"],
  ]
}
