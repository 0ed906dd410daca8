// Runs report.html's own script under node with a stand-in page and Chart.js, and prints what it
// wrote into the page as JSON: ReportScriptTest reads it. Usage: node render.js report.html
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(m => m[1]);
const elements = {};
const element = id => elements[id] || (elements[id] = {
  id, style: {}, innerHTML: '', textContent: '', closest: () => ({ style: {} }) });
global.document = { getElementById: element, querySelector: element, title: '' };
const charts = [];
global.Chart = function (canvas, config) {
  charts.push({ id: canvas.id, datasets: config.data.datasets.map(d => ({ label: d.label, data: d.data })) });
  this.data = config.data;
  this.canvas = canvas;
};
global.Chart.instances = {};
new Function(scripts[scripts.length - 1])();
const out = { title: document.title, charts };
for (const [id, e] of Object.entries(elements)) {
  out[id] = { html: e.innerHTML, text: e.textContent, display: e.style.display === undefined ? null : e.style.display };
}
process.stdout.write(JSON.stringify(out));
