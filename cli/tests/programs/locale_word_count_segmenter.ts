// Count the words of the README's first paragraph, the locale-aware way.
const text = "The sandbox runs programs. They format reports, and the model reads the answer.";
const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const words = [...segmenter.segment(text)].filter((s) => s.isWordLike);
return { words: words.length };
