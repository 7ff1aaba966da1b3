import { classIndex, COCO_CLASSES, describeVocabulary, pluralsOf } from '../../../src/engine/models/pro/vocabulary';
import { parsePrompt } from '../../../src/engine/models/pro/prompt-grammar';

describe('pro vocabulary', () => {
  it('covers the 80 COCO classes, each once, in the detector order', () => {
    expect(COCO_CLASSES).toHaveLength(80);
    expect(new Set(COCO_CLASSES).size).toBe(80);
    expect(classIndex('person')).toBe(0);
    expect(classIndex('car')).toBe(2);
    expect(classIndex('toothbrush')).toBe(79);
    expect(describeVocabulary().map((v) => v.subject)).toEqual([...COCO_CLASSES]);
  });

  it('every class name and synonym parses back to its class, singular and plural', () => {
    for (const { subject, synonyms } of describeVocabulary()) {
      for (const name of [subject, ...synonyms]) {
        expect(parsePrompt(name).subjects).toEqual([subject]);
        for (const plural of pluralsOf(name)) expect(parsePrompt(plural).subjects).toEqual([subject]);
      }
    }
  });

  it.each([
    ['man', ['person']],
    ['Women', ['person']],
    ['the people', ['person']],
    ['a kid, two children, the boy and a girl', ['person']],
    ['puppy', ['dog']],
    ['Puppies', ['dog']],
    ['automobile', ['car']],
    ['cars', ['car']],
    ['the man, his dog', ['person', 'dog']],
    ['car; TV', ['car', 'tv']],
    ['teddy bear', ['teddy bear']],
    ['a bear and a teddy bear', ['bear', 'teddy bear']],
    ['hot-dog', ['hot dog']],
    ['knives', ['knife']],
    ['buses', ['bus']],
  ])('%s -> %j', (prompt, subjects) => {
    expect(parsePrompt(prompt).subjects).toEqual(subjects);
    expect(parsePrompt(prompt).unknownWords).toEqual([]);
  });

  it('reports words that name no subject, once each, and ignores articles', () => {
    // colours are attributes (prompt-grammar.ts), not unknown words
    expect(parsePrompt('the red car, a shiny unicorn, red')).toMatchObject({ subjects: ['car'], unknownWords: ['shiny', 'unicorn'] });
    expect(parsePrompt('the, a, an')).toMatchObject({ subjects: [], unknownWords: [] });
    expect(parsePrompt('sky and clouds')).toMatchObject({ subjects: [], unknownWords: ['sky', 'clouds'] });
    expect(parsePrompt('')).toMatchObject({ subjects: [], unknownWords: [] });
    expect(parsePrompt('orange').subjects).toEqual(['orange']);
    expect(parsePrompt('orange car').subjects).toEqual(['car']);
  });

  it('plurals follow English rules for the last word', () => {
    expect(pluralsOf('bus')).toEqual(['buses']);
    expect(pluralsOf('baby')).toEqual(['babies']);
    expect(pluralsOf('toy')).toEqual(['toys']);
    expect(pluralsOf('knife')).toEqual(['knifes', 'knives']);
    expect(pluralsOf('wine glass')).toEqual(['wine glasses']);
  });
});

describe('"everyone" and "everybody" name every person', () => {
  it('parses them as the person class', () => {
    expect(parsePrompt('everyone').subjects).toEqual(['person']);
    expect(parsePrompt('everybody and the dog').subjects).toEqual(['person', 'dog']);
  });
});
