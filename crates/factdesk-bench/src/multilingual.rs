//! `factdesk-bench multilingual`: search recall and language identification beyond English
//! (issue 43), on a corpus generated here (no text copied from elsewhere).
//!
//! For each of seven languages (Chinese, Japanese, German, French, Spanish, Arabic, Russian),
//! twenty places of public life (a bridge, a museum, a station…) in three cities make sixty
//! sentences from one template, each of its own document ("In Leipzig the city opened the old
//! library in 1913, …"). A probe asks for one sentence by its place and its city, the place
//! written in another form than the sentence's where the language inflects (plural, another
//! case, without the article): "Bibliotheken Leipzig" for "die alte Bibliothek". Every city
//! has twenty sentences, so a probe whose place is not matched finds its sentence in the top
//! ten by chance at best. The documents are imported through the core (each one's language
//! detected), the probes searched in their language (as a claim's known language would be),
//! and recall@10 is the share of probes whose sentence is among the ten hits.
//!
//! Language identification: `detect_language` on every sentence of 40 characters or more,
//! right when it gives the sentence's language.
//!
//! A caveat for Japanese: a place of one character (橋, 駅, 港) is no pair, so the index holds
//! no token for it and its probe is found by its city alone; its sentences are the shortest,
//! which BM25 ranks first among equals, so those probes are found without their place being
//! matched.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use factdesk_core::import::ImportRequest;
use factdesk_core::search::SearchRequest;
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};

/// What to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct MultilingualBench {
    /// Probes missed to print per language
    #[arg(long, default_value_t = 5)]
    pub show: usize,
    /// Search each probe in the corpus default (English) instead of its own language: what
    /// a probe analysed in the wrong language finds
    #[arg(long)]
    pub as_english: bool,
}

/// One language's template and words.
struct Language {
    code: &'static str,
    /// Cities: (as in the sentence, as in a probe).
    cities: [(&'static str, &'static str); 3],
    /// Places: (the noun phrase in the sentence, the form a probe asks with).
    places: [(&'static str, &'static str); 20],
    /// The sentence of a city, a place and a year.
    sentence: fn(&str, &str, u32) -> String,
}

const LANGUAGES: &[Language] = &[
    Language {
        code: "zh",
        cities: [("上海", "上海"), ("成都", "成都"), ("西安", "西安")],
        places: [
            ("大桥", "大桥"),
            ("博物馆", "博物馆"),
            ("火车站", "火车站"),
            ("图书馆", "图书馆"),
            ("医院", "医院"),
            ("公园", "公园"),
            ("小学", "小学"),
            ("剧院", "剧院"),
            ("机场", "机场"),
            ("教堂", "教堂"),
            ("市场", "市场"),
            ("大街", "大街"),
            ("港口", "港口"),
            ("大学", "大学"),
            ("体育场", "体育场"),
            ("寺庙", "寺庙"),
            ("电视塔", "电视塔"),
            ("展览馆", "展览馆"),
            ("电影院", "电影院"),
            ("工厂", "工厂"),
        ],
        sentence: |city, place, year| {
            format!(
                "{city}的{place}于{year}年建成，当地报纸说每天都有很多人去参观，周末的时候很多家庭会带着孩子一起来。"
            )
        },
    },
    Language {
        code: "ja",
        cities: [("大阪", "大阪"), ("京都", "京都"), ("札幌", "札幌")],
        places: [
            ("橋", "橋"),
            ("博物館", "博物館"),
            ("駅", "駅"),
            ("図書館", "図書館"),
            ("病院", "病院"),
            ("公園", "公園"),
            ("小学校", "小学校"),
            ("劇場", "劇場"),
            ("空港", "空港"),
            ("教会", "教会"),
            ("市場", "市場"),
            ("大通り", "大通り"),
            ("港", "港"),
            ("大学", "大学"),
            ("競技場", "競技場"),
            ("神社", "神社"),
            ("タワー", "タワー"),
            ("展示場", "展示場"),
            ("映画館", "映画館"),
            ("工場", "工場"),
        ],
        sentence: |city, place, year| {
            format!(
                "{city}の{place}は{year}年に完成し、地元の新聞によると毎日多くの人が訪れ、週末には家族連れでとてもにぎやかになります。"
            )
        },
    },
    Language {
        code: "de",
        cities: [("Hamburg", "Hamburg"), ("München", "München"), ("Leipzig", "Leipzig")],
        places: [
            ("die neue Brücke", "Brücken"),
            ("das städtische Museum", "Museums"),
            ("den großen Bahnhof", "Bahnhofs"),
            ("die alte Bibliothek", "Bibliotheken"),
            ("das moderne Krankenhaus", "Krankenhauses"),
            ("den öffentlichen Garten", "Gartens"),
            ("die kleine Schule", "Schulen"),
            ("das berühmte Theater", "Theaters"),
            ("den neuen Flughafen", "Flughafens"),
            ("die große Kirche", "Kirchen"),
            ("das historische Rathaus", "Rathauses"),
            ("die lange Straße", "Straßen"),
            ("den alten Hafen", "Hafens"),
            ("die bekannte Universität", "Universitäten"),
            ("das neue Stadion", "Stadions"),
            ("die kleine Kapelle", "Kapellen"),
            ("den hohen Turm", "Turms"),
            ("die moderne Halle", "Hallen"),
            ("das alte Kloster", "Klosters"),
            ("die neue Fabrik", "Fabriken"),
        ],
        sentence: |city, place, year| {
            format!("In {city} eröffnete die Stadt im Jahr {year} {place}, berichtete die Zeitung.")
        },
    },
    Language {
        code: "fr",
        cities: [("Lyon", "Lyon"), ("Marseille", "Marseille"), ("Toulouse", "Toulouse")],
        places: [
            ("le nouveau pont", "ponts"),
            ("le musée municipal", "musées"),
            ("la grande gare", "gares"),
            ("la vieille bibliothèque", "bibliothèques"),
            ("l'hôpital moderne", "hôpitaux"),
            ("le jardin public", "jardins"),
            ("la petite école", "écoles"),
            ("le théâtre célèbre", "théâtres"),
            ("l'aéroport régional", "aéroports"),
            ("l'église romane", "églises"),
            ("la mairie historique", "mairies"),
            ("la longue avenue", "avenues"),
            ("le vieux port", "ports"),
            ("l'université publique", "universités"),
            ("le grand stade", "stades"),
            ("la chapelle blanche", "chapelles"),
            ("la haute tour", "tours"),
            ("la halle couverte", "halles"),
            ("le cinéma ancien", "cinémas"),
            ("l'usine textile", "usines"),
        ],
        sentence: |city, place, year| {
            format!("À {city}, la ville a ouvert {place} en {year}, d'après le journal local.")
        },
    },
    Language {
        code: "es",
        cities: [("Sevilla", "Sevilla"), ("Valencia", "Valencia"), ("Bilbao", "Bilbao")],
        places: [
            ("el puente nuevo", "puentes"),
            ("el museo municipal", "museos"),
            ("la estación central", "estaciones"),
            ("la biblioteca antigua", "bibliotecas"),
            ("el hospital moderno", "hospitales"),
            ("el jardín público", "jardines"),
            ("la escuela pequeña", "escuelas"),
            ("el teatro famoso", "teatros"),
            ("el aeropuerto regional", "aeropuertos"),
            ("la iglesia románica", "iglesias"),
            ("el mercado histórico", "mercados"),
            ("la avenida larga", "avenidas"),
            ("el puerto viejo", "puertos"),
            ("la universidad pública", "universidades"),
            ("el estadio grande", "estadios"),
            ("la capilla blanca", "capillas"),
            ("la torre alta", "torres"),
            ("la plaza cubierta", "plazas"),
            ("el cine antiguo", "cines"),
            ("la fábrica textil", "fábricas"),
        ],
        sentence: |city, place, year| {
            format!("En {city}, la ciudad abrió {place} en {year}, según el periódico local.")
        },
    },
    Language {
        code: "ar",
        cities: [("القاهرة", "القاهرة"), ("الإسكندرية", "الإسكندرية"), ("أسوان", "أسوان")],
        places: [
            ("الجسر الجديد", "جسر"),
            ("المتحف البلدي", "متحف"),
            ("المحطة المركزية", "محطة"),
            ("المكتبة القديمة", "مكتبة"),
            ("المستشفى الحديث", "مستشفى"),
            ("الحديقة العامة", "حديقة"),
            ("المدرسة الصغيرة", "مدرسة"),
            ("المسرح الشهير", "مسرح"),
            ("المطار الإقليمي", "مطار"),
            ("الكنيسة القديمة", "كنيسة"),
            ("السوق التاريخي", "سوق"),
            ("الشارع الطويل", "شارع"),
            ("الميناء القديم", "ميناء"),
            ("الجامعة الحكومية", "جامعة"),
            ("الملعب الكبير", "ملعب"),
            ("المسجد الأبيض", "مسجد"),
            ("البرج العالي", "برج"),
            ("القاعة المغطاة", "قاعة"),
            ("السينما القديمة", "سينما"),
            ("المصنع النسيجي", "مصنع"),
        ],
        sentence: |city, place, year| {
            format!("في {city} افتتحت المدينة {place} عام {year} حسب الصحيفة المحلية.")
        },
    },
    Language {
        code: "ru",
        cities: [("Казани", "Казань"), ("Самаре", "Самара"), ("Новосибирске", "Новосибирск")],
        places: [
            ("новый мост", "мосты"),
            ("городской музей", "музеи"),
            ("большой вокзал", "вокзалы"),
            ("старую библиотеку", "библиотека"),
            ("новую больницу", "больница"),
            ("общественный сад", "сады"),
            ("маленькую школу", "школа"),
            ("известный театр", "театры"),
            ("региональный аэропорт", "аэропорты"),
            ("белую церковь", "церкви"),
            ("исторический рынок", "рынки"),
            ("широкий проспект", "проспекты"),
            ("старый порт", "порты"),
            ("государственный университет", "университеты"),
            ("большой стадион", "стадионы"),
            ("маленькую часовню", "часовня"),
            ("высокую башню", "башня"),
            ("крытый зал", "залы"),
            ("старый кинотеатр", "кинотеатры"),
            ("текстильную фабрику", "фабрика"),
        ],
        sentence: |city, place, year| {
            format!("В {city} в {year} году открыли {place}, сообщила местная газета.")
        },
    },
];

/// One sentence of the corpus and the probe that asks for it.
struct Item {
    language: &'static str,
    sentence: String,
    probe: String,
}

fn corpus() -> Vec<Item> {
    let mut items = Vec::new();
    for language in LANGUAGES {
        for (c, (city, city_probe)) in language.cities.iter().enumerate() {
            for (p, (place, place_probe)) in language.places.iter().enumerate() {
                let year = 1900 + (c * 20 + p) as u32;
                items.push(Item {
                    language: language.code,
                    sentence: (language.sentence)(city, place, year),
                    probe: format!("{place_probe} {city_probe}"),
                });
            }
        }
    }
    items
}

pub fn run(bench: &MultilingualBench) -> anyhow::Result<()> {
    let items = corpus();
    let folder = tempfile::tempdir()?;
    let file = folder.path().join("multilingual.jsonl");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
        for item in &items {
            serde_json::to_writer(&mut out, &serde_json::json!({ "text": item.sentence }))?;
            out.write_all(b"\n")?;
        }
    }
    let data = folder.path().join("data");
    let app = Factdesk::open_with_settings(&data, Settings::default())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let summary = runtime.block_on(app.import(
        ImportRequest {
            sources: vec![file.display().to_string()],
            corpus: "multilingual".into(),
            text_field: Some("text".into()),
            ..ImportRequest::default()
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    anyhow::ensure!(
        summary.imported as usize == items.len(),
        "imported {} of {} sentences: {:?}",
        summary.imported,
        items.len(),
        summary.failures.first()
    );
    // Each line is one document, in order.
    let mut stored_language: BTreeMap<usize, Option<String>> = BTreeMap::new();
    for (line, document) in summary.documents.iter().enumerate() {
        stored_language.insert(line, app.document(document.id)?.summary.language);
    }

    #[derive(Default)]
    struct Row {
        probes: usize,
        found: usize,
        long: usize,
        identified: usize,
        imported_as: usize,
        misses: Vec<String>,
        confusions: Vec<String>,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for (line, item) in items.iter().enumerate() {
        let row = rows.entry(item.language).or_default();
        let request = SearchRequest {
            query: item.probe.clone(),
            limit: Some(10),
            plain_words: true,
            language: Some(if bench.as_english { "en" } else { item.language }.to_owned()),
            ..SearchRequest::default()
        };
        let hits = app.search(&request)?;
        row.probes += 1;
        if hits.iter().any(|hit| hit.sentence == item.sentence) {
            row.found += 1;
        } else if row.misses.len() < bench.show {
            row.misses.push(format!("{} -> {}", item.probe, item.sentence));
        }
        if stored_language[&line].as_deref() == Some(item.language) {
            row.imported_as += 1;
        }
        if item.sentence.chars().count() >= 40 {
            row.long += 1;
            let found = factdesk_text::detect_language(&item.sentence);
            if found.is_some_and(|language| language.code == item.language) {
                row.identified += 1;
            } else if row.confusions.len() < bench.show {
                let said = found.map_or("none", |language| language.code);
                row.confusions.push(format!("as {said}: {}", item.sentence));
            }
        }
    }
    println!(
        "Multilingual corpus: {} generated sentences, one per document, {} languages; probes \
         searched in {}",
        items.len(),
        rows.len(),
        if bench.as_english { "English" } else { "their own language" }
    );
    println!(
        "lang  probes  recall@10  documents given their language  LID (40+ chars)  LID accuracy"
    );
    let (mut probes, mut found, mut long, mut identified) = (0, 0, 0, 0);
    for (code, row) in &rows {
        println!(
            "{code:<5} {:>6}  {:>9.3}  {:>7} of {:<22} {:>6} of {:<6}  {:>11.1}%",
            row.probes,
            ratio(row.found, row.probes),
            row.imported_as,
            row.probes,
            row.identified,
            row.long,
            100.0 * ratio(row.identified, row.long)
        );
        probes += row.probes;
        found += row.found;
        long += row.long;
        identified += row.identified;
    }
    println!(
        "all   {probes:>6}  {:>9.3}  {:>41} of {:<6}  {:>11.1}%",
        ratio(found, probes),
        identified,
        long,
        100.0 * ratio(identified, long)
    );
    for (code, row) in &rows {
        for miss in &row.misses {
            println!("  [{code}] missed: {miss}");
        }
        for confusion in &row.confusions {
            println!("  [{code}] identified {confusion}");
        }
    }
    Ok(())
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}
