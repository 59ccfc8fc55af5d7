import { decodeClientFrame, decodeClientValue } from './codec';

describe('decodeClientValue (a frame a transport already parsed)', () => {
  const texts = [
    '{"type":1,"body":"  hi  ","client_id":"c1"}',
    '{"type":1,"body":""}',
    '{"type":1,"body":"x","client_id":7}',
    '{"type":2,"typing":true}',
    '{"type":"1"}',
    '[1]',
    '"text"',
    'null',
  ];

  it.each(texts)('answers %s as decodeClientFrame answers its text', (text) => {
    expect(decodeClientValue(JSON.parse(text))).toEqual(decodeClientFrame(text));
  });
});
